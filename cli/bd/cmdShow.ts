import type { Bead } from '../../schemas/beads.ts';
import { list, type FlagSpec } from './args.ts';
import { jsonText, type BdContext } from './context.ts';
import { BdError } from './errors.ts';
import { toIssue, showText, type Issue } from './issue.ts';
import { getBead } from './store.ts';
import { commentsOf } from './comments.ts';

export const SHOW_FLAGS: FlagSpec = {
  id: { kind: 'list' },
  short: { kind: 'bool' },
  long: { kind: 'bool' },
  children: { kind: 'bool' },
};

/** The IDs of a multi-ID command: positionals then `--id` values; none is an error. */
export function idsOf(ctx: BdContext, verb: string): string[] {
  const ids = [...ctx.args.positional, ...list(ctx.args, 'id')];
  if (ids.length === 0) throw new BdError(`${verb} requires at least one issue ID`);
  return ids;
}

/** bd show's issue: labels, the beads it depends on (with `dependency_type`), its parent. */
async function detailed(ctx: BdContext, b: Bead): Promise<Issue> {
  const out = toIssue(b);
  out.labels = [...(b.labels ?? [])];
  const deps: Issue[] = [];
  for (const d of b.dependencies ?? []) {
    try {
      deps.push({ ...toIssue(await getBead(ctx.client, d.depends_on_id)), dependency_type: d.type });
    } catch {
      // A dependency on a deleted bead: bd shows what it can.
    }
  }
  if (deps.length > 0) out.dependencies = deps;
  const comments = commentsOf(b);
  // bd v1.0.0's show embeds `comments` (its `comment_count` came later, with comments opt-in).
  if (comments.length > 0) out.comments = comments;
  return out;
}

/** `bd show <id…>`: an array (JSON) or the text view per found ID; exit 1 if none was found. */
export async function showCmd(ctx: BdContext): Promise<void> {
  const found: Bead[] = [];
  for (const id of idsOf(ctx, 'show')) {
    try {
      found.push(await getBead(ctx.client, id));
    } catch (err) {
      if (!(err instanceof BdError) || /cannot reach/.test(err.message)) throw err;
      ctx.warn(`Error fetching ${id}: ${err.message}`);
    }
  }
  if (found.length === 0) throw new BdError('no issues found matching the provided IDs');
  if (ctx.json) {
    const issues: Issue[] = [];
    for (const b of found) issues.push(await detailed(ctx, b));
    ctx.out(jsonText(issues));
    return;
  }
  const texts: string[] = [];
  for (const b of found) {
    const base = await ctx.client.cityPath();
    const children = (
      (await ctx.client.call('GET', `${base}/bead/${encodeURIComponent(b.id)}/deps`)).body as {
        children: Bead[] | null;
      }
    ).children;
    texts.push(showText(b, children ?? []));
  }
  ctx.out(texts.join('\n\n'));
}
