import type { Bead } from '../../schemas/beads.ts';
import { bool, commaList, list, str, type FlagSpec } from './args.ts';
import { jsonText, type BdContext } from './context.ts';
import { bdOrder, flatLine, listIssue } from './issue.ts';
import { listAll, readyAll } from './store.ts';
import { limitOf, metadataFilters } from './values.ts';

const FILTER_FLAGS: FlagSpec = {
  assignee: { kind: 'string', short: 'a' },
  type: { kind: 'string', short: 't' },
  label: { kind: 'list', short: 'l' },
  'label-any': { kind: 'list' },
  parent: { kind: 'string' },
  'metadata-field': { kind: 'list' },
  'has-metadata-key': { kind: 'string' },
  limit: { kind: 'string', short: 'n' },
  priority: { kind: 'string', short: 'p' },
  pretty: { kind: 'bool' },
  plain: { kind: 'bool' },
};

export const LIST_FLAGS: FlagSpec = {
  ...FILTER_FLAGS,
  status: { kind: 'string', short: 's' },
  'no-assignee': { kind: 'bool' },
  all: { kind: 'bool' },
  'include-infra': { kind: 'bool' },
  'include-gates': { kind: 'bool' },
  'include-templates': { kind: 'bool' },
  flat: { kind: 'bool' },
  tree: { kind: 'bool' },
  long: { kind: 'bool' },
};

export const READY_FLAGS: FlagSpec = { ...FILTER_FLAGS, unassigned: { kind: 'bool', short: 'u' } };

const INFRA = new Set(['agent', 'rig', 'role', 'message']);

/** The filters list and ready share (bd compares metadata as unquoted strings, labels with AND). Pure. */
function matcher(ctx: BdContext): (b: Bead) => boolean {
  const { args } = ctx;
  const assignee = str(args, 'assignee');
  const type = str(args, 'type');
  const labels = commaList(args, 'label');
  const anyLabels = commaList(args, 'label-any');
  const parent = str(args, 'parent');
  const fields = metadataFilters(list(args, 'metadata-field'));
  const hasKey = str(args, 'has-metadata-key');
  const priority = str(args, 'priority');
  return (b) =>
    (assignee === undefined || b.assignee === assignee) &&
    (type === undefined || b.issue_type === type) &&
    labels.every((l) => b.labels?.includes(l)) &&
    (anyLabels.length === 0 || anyLabels.some((l) => b.labels?.includes(l))) &&
    (parent === undefined || b.parent === parent) &&
    fields.every(([k, v]) => b.metadata?.[k] === v) &&
    (hasKey === undefined || (b.metadata !== undefined && hasKey in b.metadata)) &&
    (priority === undefined || String(b.priority ?? 2) === priority.replace(/^[Pp]/, ''));
}

function print(ctx: BdContext, shown: Bead[], all: Bead[], empty: string): void {
  if (ctx.json) ctx.out(jsonText(shown.map((b) => listIssue(b, all))));
  else if (shown.length === 0) ctx.out(empty);
  else if (agentMode(ctx.env)) ctx.out(shown.map((b) => `${b.id}: ${b.title}`).join('\n'));
  else ctx.out(shown.map(flatLine).join('\n'));
}

const agentMode = (env: NodeJS.ProcessEnv): boolean => env.BD_AGENT_MODE === '1' || !!env.CLAUDE_CODE;

/** `bd list`: open beads (or `--status a,b` / `--all`), infra and gates hidden unless asked. */
export async function listCmd(ctx: BdContext): Promise<void> {
  const { args } = ctx;
  const statusRaw = str(args, 'status');
  const statuses = statusRaw && statusRaw !== 'all' ? statusRaw.split(',').map((s) => s.trim()) : [];
  const everything = bool(args, 'all') || statusRaw === 'all';
  const type = str(args, 'type');
  const fetched = await listAll(ctx.client, {
    status: statuses.length === 1 ? statuses[0] : undefined,
    all: statuses.length !== 1 && (everything || statuses.length > 1) ? true : undefined,
    type,
    assignee: str(args, 'assignee'),
    label: commaList(args, 'label')[0],
  });
  const match = matcher(ctx);
  const noAssignee = bool(args, 'no-assignee');
  const hidden = (b: Bead): boolean =>
    type === undefined &&
    ((!bool(args, 'include-infra') && INFRA.has(b.issue_type)) ||
      (!bool(args, 'include-gates') && b.issue_type === 'gate'));
  const shownAll = fetched
    .filter(
      (b) =>
        (statuses.length > 0
          ? statuses.includes(b.status)
          : everything || (b.status !== 'closed' && b.status !== 'pinned')) &&
        !hidden(b) &&
        (!noAssignee || !b.assignee) &&
        match(b),
    )
    .sort(bdOrder);
  const fallback = everything && str(args, 'limit') === undefined ? 0 : agentMode(ctx.env) ? 20 : 50;
  const limit = limitOf(str(args, 'limit'), fallback);
  const shown = limit > 0 ? shownAll.slice(0, limit) : shownAll;
  print(ctx, shown, fetched, 'No issues found.');
  if (!ctx.json && limit > 0 && shownAll.length > limit) {
    process.stderr.write(`Showing ${limit} issues (use --limit 0 for all)\n`);
  }
}

/** `bd ready`: open, unblocked, not deferred work; `--unassigned` wins over `--assignee`. */
export async function readyCmd(ctx: BdContext): Promise<void> {
  const { args } = ctx;
  const unassigned = bool(args, 'unassigned');
  if (unassigned) args.flags.delete('assignee');
  const match = matcher(ctx);
  const all = await readyAll(ctx.client);
  const shownAll = all.filter((b) => (!unassigned || !b.assignee) && match(b)).sort(bdOrder);
  const limit = limitOf(str(args, 'limit'), 10);
  const shown = limit > 0 ? shownAll.slice(0, limit) : shownAll;
  // Dependents of a ready bead are mostly blocked ones, which the ready set lacks: count over open beads.
  const counted = ctx.json && shown.length > 0 ? await listAll(ctx.client, {}) : all;
  print(ctx, shown, counted, 'No ready work found (all issues have blocking dependencies)');
}

const BLOCKING = new Set(['blocks', 'conditional-blocks', 'waits-for']);

/** `bd blocked`: open beads with an open blocker, each with its blockers. */
export async function blockedCmd(ctx: BdContext): Promise<void> {
  const parent = str(ctx.args, 'parent');
  const open = await listAll(ctx.client, {});
  const live = new Set(open.map((b) => b.id));
  const rows = open
    .filter((b) => parent === undefined || b.parent === parent)
    .map((b) => ({
      bead: b,
      by: (b.dependencies ?? [])
        .filter((d) => BLOCKING.has(d.type) && live.has(d.depends_on_id))
        .map((d) => d.depends_on_id),
    }))
    .filter((r) => r.by.length > 0)
    .sort((x, y) => bdOrder(x.bead, y.bead));
  if (ctx.json) {
    ctx.out(
      jsonText(
        rows.map((r) => ({ ...listIssue(r.bead, open), blocked_by_count: r.by.length, blocked_by: r.by })),
      ),
    );
  } else if (rows.length === 0) ctx.out('No blocked issues');
  else {
    ctx.out(
      [
        `Blocked issues (${rows.length}):`,
        ...rows.map((r) => `${flatLine(r.bead)}\n  Blocked by: ${r.by.join(', ')}`),
      ].join('\n'),
    );
  }
}

export const BLOCKED_FLAGS: FlagSpec = { parent: { kind: 'string' } };
