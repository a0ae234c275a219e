import type { Bead } from '../../schemas/beads.ts';
import type { BdClient } from '../bd/client.ts';
import { jsonText } from '../bd/context.ts';
import { bdOrder, listIssue } from '../bd/issue.ts';
import { listAll, readyAll } from '../bd/store.ts';

/**
 * Upstream's default `work_query`, evaluated in-process over the API (what its four `bd` calls would print,
 * without starting four bd processes): the first non-empty tier wins.
 *  1. per identity: its in-progress bead (a crash left it claimed);
 *  2. per identity: a ready bead pre-assigned to it;
 *  3. unless a named session: a ready, unassigned bead routed to the template;
 *  4. an open, unassigned molecule routed to the template.
 * Answers bd's `--json --limit=1` output: a one-element array, or `[]`.
 */
export async function defaultWorkQuery(
  client: BdClient,
  opts: { identities: string[]; template: Promise<string>; named: boolean },
): Promise<string> {
  const first = (beads: Bead[], all: Bead[]): string | undefined => {
    const sorted = [...beads].sort(bdOrder);
    return sorted.length > 0 ? jsonText([listIssue(sorted[0]!, all)]) : undefined;
  };
  // Every tier's read is sent at once (they are reads: asking for a tier that will not be needed changes
  // nothing), so a hook costs one round trip of latency instead of one per tier; the tiers are still
  // answered in order. A failed read fails the query, as a failing bd call would.
  const heldP = opts.identities.map((id) => listAll(client, { status: 'in_progress', assignee: id }));
  const readyP = readyAll(client);
  const moleculesP = listAll(client, { status: 'open', type: 'molecule' });
  const settled = Promise.all([...heldP, readyP, moleculesP, opts.template]);
  settled.catch(() => undefined);
  const [template] = await Promise.all([opts.template, settled]);
  for (const held of await Promise.all(heldP)) {
    const hit = first(held, held);
    if (hit) return hit;
  }
  const ready = await readyP;
  for (const id of opts.identities) {
    const hit = first(
      ready.filter((b) => b.assignee === id),
      ready,
    );
    if (hit) return hit;
  }
  const routed = (b: Bead): boolean => b.metadata?.['gc.routed_to'] === template && !b.assignee;
  if (!opts.named) {
    const hit = first(ready.filter(routed), ready);
    if (hit) return hit;
  }
  const molecules = await moleculesP;
  return first(molecules.filter(routed), molecules) ?? '[]';
}

/**
 * Work exists iff the trimmed output is non-empty, is not bd's "No ready work found", and (when JSON) is
 * a non-empty array or object; a lone object is wrapped into an array. Pure.
 */
export function normalizeWork(output: string): { text: string; hasWork: boolean } {
  const trimmed = output.trim();
  if (trimmed === '' || trimmed.includes('No ready work found')) return { text: trimmed, hasWork: false };
  try {
    const value: unknown = JSON.parse(trimmed);
    if (Array.isArray(value)) return { text: trimmed, hasWork: value.length > 0 };
    if (value && typeof value === 'object') {
      return { text: jsonText([value]), hasWork: Object.keys(value).length > 0 };
    }
  } catch {
    // Not JSON: any text is work.
  }
  return { text: trimmed, hasWork: true };
}
