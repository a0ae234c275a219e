import type { Bead } from '../../schemas/beads.ts';
import { bool, commaList, list, str, type FlagSpec } from './args.ts';
import { jsonText, type BdContext } from './context.ts';
import { ApiFailure } from './client.ts';
import { BdError } from './errors.ts';
import { toIssue, type Issue } from './issue.ts';
import { idsOf } from './cmdShow.ts';
import { typeAlias } from './cmdCreate.ts';
import { getBead, post } from './store.ts';
import { metadataObject, metadataPair, priorityOf } from './values.ts';

export const UPDATE_FLAGS: FlagSpec = {
  id: { kind: 'list' },
  status: { kind: 'string', short: 's' },
  assignee: { kind: 'string', short: 'a' },
  claim: { kind: 'bool' },
  'set-metadata': { kind: 'list' },
  metadata: { kind: 'string' },
  'add-label': { kind: 'list' },
  'remove-label': { kind: 'list' },
  title: { kind: 'string' },
  type: { kind: 'string', short: 't' },
  priority: { kind: 'string', short: 'p' },
  description: { kind: 'string', short: 'd', aliases: ['body'] },
  parent: { kind: 'string' },
};

const STATUSES = ['open', 'in_progress', 'blocked', 'deferred', 'closed', 'pinned', 'hooked'];

/** The update body the flags ask for (undefined: nothing to change). Validates before anything is sent. */
function patchOf(ctx: BdContext): Record<string, unknown> | undefined {
  const { args } = ctx;
  const patch: Record<string, unknown> = {};
  const status = str(args, 'status');
  if (status !== undefined) {
    if (!STATUSES.includes(status)) throw new BdError(`invalid status "${status}" (${STATUSES.join(', ')})`);
    patch.status = status;
  }
  const assignee = str(args, 'assignee');
  if (assignee !== undefined) patch.assignee = assignee;
  for (const [flag, key] of [
    ['title', 'title'],
    ['description', 'description'],
  ] as const) {
    const v = str(args, flag);
    if (v !== undefined) patch[key] = v;
  }
  const type = str(args, 'type');
  if (type !== undefined) patch.type = typeAlias(type);
  const priority = str(args, 'priority');
  if (priority !== undefined) patch.priority = priorityOf(priority);
  const parent = str(args, 'parent');
  if (parent !== undefined) patch.parent = parent;
  const meta: Record<string, string> = {};
  const json = str(args, 'metadata');
  if (json !== undefined) Object.assign(meta, metadataObject(json));
  for (const raw of list(args, 'set-metadata')) {
    const [k, v] = metadataPair(raw);
    meta[k] = v;
  }
  if (Object.keys(meta).length > 0) patch.metadata = meta;
  const add = commaList(args, 'add-label');
  if (add.length > 0) patch.labels = add;
  const remove = commaList(args, 'remove-label');
  if (remove.length > 0) patch.remove_labels = remove;
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/**
 * `bd update <id…>`: per ID, the claim first (`--claim`: atomic, refused when another holds it), then
 * the fields. A failing ID is reported on stderr and skipped; exit 1 only when none was updated.
 */
export async function updateCmd(ctx: BdContext): Promise<void> {
  const ids = idsOf(ctx, 'update');
  const patch = patchOf(ctx);
  const claim = bool(ctx.args, 'claim');
  if (!patch && !claim) {
    ctx.out(ctx.json ? '[]' : 'No updates specified');
    return;
  }
  const base = await ctx.client.cityPath();
  const done: Issue[] = [];
  for (const id of ids) {
    try {
      if (claim) {
        try {
          await post(ctx.client, id, 'claim', { claimant: ctx.actor });
        } catch (err) {
          if (err instanceof ApiFailure && err.status === 409) {
            ctx.warn(
              `Error claiming ${id}: ${err.message.replace(/^bead \S+ already claimed by/, 'issue already claimed by')}`,
            );
            continue;
          }
          throw err;
        }
      }
      if (patch) await ctx.client.call('POST', `${base}/bead/${encodeURIComponent(id)}/update`, patch);
      const bead: Bead = await getBead(ctx.client, id);
      done.push(toIssue(bead));
      if (!ctx.json) ctx.out(`✓ Updated issue: ${bead.id} — ${bead.title}`);
    } catch (err) {
      if (!(err instanceof ApiFailure) && !(err instanceof BdError && /no issue found/.test(err.message)))
        throw err;
      ctx.warn(`Error updating ${id}: ${err.message}`);
    }
  }
  if (ctx.json && done.length > 0) ctx.out(jsonText(done));
  if (done.length === 0) process.exitCode = 1;
}

export const CLOSE_FLAGS: FlagSpec = {
  id: { kind: 'list' },
  reason: { kind: 'string', short: 'r', aliases: ['resolution', 'comment'] },
  force: { kind: 'bool', short: 'f' },
};

/** `bd close <id…> [--reason r]`: the reason is kept as `close_reason` metadata, then the bead closes. */
export async function closeCmd(ctx: BdContext): Promise<void> {
  const reason = str(ctx.args, 'reason');
  const done: Issue[] = [];
  for (const id of idsOf(ctx, 'close')) {
    try {
      if (reason) await post(ctx.client, id, 'update', { metadata: { close_reason: reason } });
      try {
        await post(ctx.client, id, 'close');
      } catch (err) {
        // Closing a closed bead: what counts is that it is closed now (as gc reads bd).
        if (!(err instanceof ApiFailure) || (await getBead(ctx.client, id)).status !== 'closed') throw err;
      }
      const bead = await getBead(ctx.client, id);
      done.push(toIssue(bead));
      if (!ctx.json) ctx.out(`✓ Closed ${bead.id} — ${bead.title}: ${reason || 'Closed'}`);
      await autocloseConvoy(ctx, bead);
    } catch (err) {
      if (!(err instanceof ApiFailure) && !(err instanceof BdError && /no issue found/.test(err.message)))
        throw err;
      ctx.warn(`Error closing ${id}: ${err.message}`);
    }
  }
  if (ctx.json && done.length > 0) ctx.out(jsonText(done));
  if (done.length === 0) process.exitCode = 1;
}

export const REOPEN_FLAGS: FlagSpec = { reason: { kind: 'string', short: 'r' } };

/** `bd reopen <id…>`: an open bead is reported (not an error). */
export async function reopenCmd(ctx: BdContext): Promise<void> {
  const reason = str(ctx.args, 'reason');
  const done: Issue[] = [];
  for (const id of idsOf(ctx, 'reopen')) {
    try {
      const before = await getBead(ctx.client, id);
      if (before.status !== 'closed') {
        ctx.warn(`${id} is already open`);
        continue;
      }
      await post(ctx.client, id, 'reopen');
      done.push(toIssue(await getBead(ctx.client, id)));
      if (!ctx.json) ctx.out(`↻ Reopened ${id}${reason ? `: ${reason}` : ''}`);
    } catch (err) {
      if (!(err instanceof ApiFailure) && !(err instanceof BdError && /no issue found/.test(err.message)))
        throw err;
      ctx.warn(`Error reopening ${id}: ${err.message}`);
    }
  }
  if (ctx.json && done.length > 0) ctx.out(jsonText(done));
}

/**
 * What upstream's bd on_close hook does through `gc convoy autoclose`: once the last member of a convoy
 * closes, the convoy closes (unless it is `owned`: a manual lifecycle). Best effort, as upstream: a
 * failure here never fails the close.
 */
async function autocloseConvoy(ctx: BdContext, bead: Bead): Promise<void> {
  if (!bead.parent) return;
  try {
    const parent = await getBead(ctx.client, bead.parent);
    if (parent.issue_type !== 'convoy' || parent.status === 'closed' || parent.labels?.includes('owned'))
      return;
    const base = `${await ctx.client.cityPath()}/convoy/${encodeURIComponent(parent.id)}`;
    const check = (await ctx.client.call('GET', `${base}/check`)).body as { complete?: boolean };
    if (check.complete) await ctx.client.call('POST', `${base}/close`);
  } catch {
    // The bead is closed; the convoy is checked again by `gc convoy check`.
  }
}
