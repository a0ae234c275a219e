import type { Bead } from '../../schemas/beads.ts';
import { str, type FlagSpec } from './args.ts';
import { jsonText, type BdContext } from './context.ts';
import { BdError, UnsupportedError } from './errors.ts';
import { toIssue } from './issue.ts';
import { getBead, post } from './store.ts';

export const DEP_FLAGS: FlagSpec = {
  type: { kind: 'string', short: 't' },
  'max-depth': { kind: 'string' },
  direction: { kind: 'string' },
};

type Direction = 'down' | 'up' | 'both';

/**
 * The links `bd dep tree` walks from one bead, as upstream's dependency records: down, what it depends on
 * (its dependencies, and its parent through `parent-child`); up, what depends on it (its children through
 * `parent-child`). Upstream's `up` also lists beads blocked by it; ours lists its children only.
 */
async function linksOf(
  ctx: BdContext,
  bead: Bead,
  direction: Direction,
): Promise<{ id: string; type: string }[]> {
  const out: { id: string; type: string }[] = [];
  if (direction !== 'up') {
    if (bead.parent) out.push({ id: bead.parent, type: 'parent-child' });
    for (const d of bead.dependencies ?? []) out.push({ id: d.depends_on_id, type: d.type });
  }
  if (direction !== 'down') {
    const base = await ctx.client.cityPath();
    const { children } = (await ctx.client.call('GET', `${base}/bead/${encodeURIComponent(bead.id)}/deps`))
      .body as { children: Bead[] | null };
    for (const c of children ?? []) out.push({ id: c.id, type: 'parent-child' });
  }
  return out;
}

/** `bd dep add|remove|tree`: `add <issue> <depends-on>` makes the first blocked by the second. */
export async function depCmd(ctx: BdContext): Promise<void> {
  const [verb, ...rest] = ctx.args.positional;
  const base = await ctx.client.cityPath();
  if (verb === 'add' || verb === 'remove' || verb === 'rm') {
    if (rest.length !== 2) throw new BdError(`dep ${verb} requires exactly two issue IDs`);
    const [issue, dependsOn] = rest as [string, string];
    const type = str(ctx.args, 'type');
    if (verb === 'add') {
      await post(ctx.client, issue, 'dependencies', { depends_on_id: dependsOn, type: type ?? 'blocks' });
      if (ctx.json) {
        ctx.out(
          jsonText({ status: 'added', issue_id: issue, depends_on_id: dependsOn, type: type ?? 'blocks' }),
        );
      } else ctx.out(`✓ Added dependency: ${issue} depends on ${dependsOn} (${type ?? 'blocks'})`);
      return;
    }
    const q = type ? `?type=${encodeURIComponent(type)}` : '';
    await ctx.client.call(
      'DELETE',
      `${base}/bead/${encodeURIComponent(issue)}/dependencies/${encodeURIComponent(dependsOn)}${q}`,
    );
    if (ctx.json) ctx.out(jsonText({ status: 'removed', issue_id: issue, depends_on_id: dependsOn }));
    else ctx.out(`✓ Removed dependency: ${issue} no longer depends on ${dependsOn}`);
    return;
  }
  if (verb === 'tree') {
    if (rest.length !== 1) throw new BdError('dep tree requires exactly one issue ID');
    const maxDepth = Number(str(ctx.args, 'max-depth') ?? 50);
    const direction = str(ctx.args, 'direction') ?? 'down';
    if (direction !== 'down' && direction !== 'up' && direction !== 'both')
      throw new BdError(`invalid direction "${direction}" (down, up, both)`);
    const nodes: { bead: Bead; depth: number; type: string }[] = [];
    const walk = async (id: string, depth: number, type: string, seen: Set<string>): Promise<void> => {
      const bead = await getBead(ctx.client, id);
      nodes.push({ bead, depth, type });
      if (depth >= maxDepth || seen.has(id)) return;
      for (const link of await linksOf(ctx, bead, direction))
        await walk(link.id, depth + 1, link.type, new Set([...seen, id]));
    };
    await walk(rest[0]!, 0, '', new Set());
    if (ctx.json) {
      ctx.out(
        jsonText(
          nodes.map((n) => ({
            ...toIssue(n.bead),
            depth: n.depth,
            parent_id: n.depth === 0 ? '' : undefined,
            ...(n.type ? { dependency_type: n.type } : {}),
          })),
        ),
      );
    } else {
      ctx.out(
        nodes
          .map(
            (n) =>
              `${'  '.repeat(n.depth)}${n.depth ? '└── ' : ''}${n.bead.id}: ${n.bead.title} [${n.bead.status}]`,
          )
          .join('\n'),
      );
    }
    return;
  }
  throw new UnsupportedError(`unsupported command "bd dep ${verb ?? ''}"`);
}

/** `bd label add|remove <id…> <label>` (the label is the last argument) and `bd label list <id>`. */
export async function labelCmd(ctx: BdContext): Promise<void> {
  const [verb, ...rest] = ctx.args.positional;
  if (verb === 'list') {
    if (rest.length !== 1) throw new BdError('label list requires exactly one issue ID');
    const labels = [...((await getBead(ctx.client, rest[0]!)).labels ?? [])];
    if (ctx.json) ctx.out(jsonText(labels));
    else if (labels.length === 0) ctx.out(`${rest[0]!} has no labels`);
    else ctx.out([`Labels for ${rest[0]!}:`, ...labels.map((l) => `  - ${l}`)].join('\n'));
    return;
  }
  if (verb !== 'add' && verb !== 'remove')
    throw new UnsupportedError(`unsupported command "bd label ${verb ?? ''}"`);
  if (rest.length < 2) throw new BdError(`label ${verb} requires an issue ID and a label`);
  const label = rest[rest.length - 1]!;
  const results: { status: string; issue_id: string; label: string }[] = [];
  for (const id of rest.slice(0, -1)) {
    await post(ctx.client, id, 'update', verb === 'add' ? { labels: [label] } : { remove_labels: [label] });
    results.push({ status: verb === 'add' ? 'added' : 'removed', issue_id: id, label });
    if (!ctx.json)
      ctx.out(
        `✓ ${verb === 'add' ? 'Added' : 'Removed'} label '${label}' ${verb === 'add' ? 'to' : 'from'} ${id}`,
      );
  }
  if (ctx.json) ctx.out(jsonText(results));
}
