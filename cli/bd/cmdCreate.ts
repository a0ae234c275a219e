import { bool, commaList, str, type FlagSpec } from './args.ts';
import type { BdContext } from './context.ts';
import { jsonText } from './context.ts';
import { BdError } from './errors.ts';
import { toIssue } from './issue.ts';
import { metadataObject, priorityOf } from './values.ts';
import type { Bead } from '../../schemas/beads.ts';

export const CREATE_FLAGS: FlagSpec = {
  title: { kind: 'string' },
  type: { kind: 'string', short: 't' },
  priority: { kind: 'string', short: 'p' },
  description: { kind: 'string', short: 'd', aliases: ['body', 'message'] },
  assignee: { kind: 'string', short: 'a' },
  labels: { kind: 'list', short: 'l', aliases: ['label'] },
  parent: { kind: 'string' },
  deps: { kind: 'list' },
  metadata: { kind: 'string' },
  silent: { kind: 'bool' },
};

/** `bd create [title]`: one bead; `--deps type:id` edges after it (`blocks:X`: the new bead blocks X). */
export async function create(ctx: BdContext): Promise<void> {
  const { args } = ctx;
  const flagTitle = str(args, 'title');
  const posTitle = args.positional.join(' ');
  if (flagTitle !== undefined && posTitle !== '' && flagTitle !== posTitle) {
    throw new BdError(
      `cannot specify both title "${posTitle}" and --title "${flagTitle}" with different values`,
    );
  }
  const title = flagTitle ?? posTitle;
  if (title.trim() === '') throw new BdError('title required (pass it as an argument or with --title)');
  const deps = commaList(args, 'deps').map((d) => {
    const [type, id] = d.includes(':')
      ? [d.slice(0, d.indexOf(':')), d.slice(d.indexOf(':') + 1)]
      : ['blocks', d];
    if (!id) throw new BdError(`invalid dependency "${d}" (expected type:id)`);
    return { type, id };
  });
  const body: Record<string, unknown> = { title, type: typeAlias(str(args, 'type') ?? 'task') };
  const priority = str(args, 'priority');
  if (priority !== undefined) body.priority = priorityOf(priority);
  const description = str(args, 'description');
  if (description) body.description = description;
  const assignee = str(args, 'assignee');
  if (assignee) body.assignee = assignee;
  const labels = commaList(args, 'labels');
  if (labels.length > 0) body.labels = labels;
  const parent = str(args, 'parent');
  if (parent) body.parent = parent;
  const metadata = str(args, 'metadata');
  if (metadata !== undefined) body.metadata = metadataObject(metadata);
  const base = await ctx.client.cityPath();
  let bead = (await ctx.client.call('POST', `${base}/beads`, body)).body as Bead;
  for (const d of deps) {
    // bd's `blocks:X` reads "the new issue blocks X": the edge belongs to X.
    const [from, to] = d.type === 'blocks' ? [d.id, bead.id] : [bead.id, d.id];
    const after = (
      await ctx.client.call('POST', `${base}/bead/${encodeURIComponent(from)}/dependencies`, {
        depends_on_id: to,
        type: d.type,
      })
    ).body as Bead;
    if (after.id === bead.id) bead = after;
  }
  if (ctx.json) ctx.out(jsonText(toIssue(bead)));
  else if (bool(args, 'silent')) ctx.out(bead.id);
  else
    ctx.out(
      `✓ Created issue: ${bead.id} — ${bead.title}\n  Priority: P${bead.priority ?? 2}\n  Status: ${bead.status}`,
    );
}

const TYPE_ALIASES: Record<string, string> = {
  feat: 'feature',
  enhancement: 'feature',
  dec: 'decision',
  adr: 'decision',
  mr: 'merge-request',
  mol: 'molecule',
};

/** bd's type aliases (`feat` → feature, `mol` → molecule, …). Pure. */
export const typeAlias = (t: string): string => TYPE_ALIASES[t] ?? t;
