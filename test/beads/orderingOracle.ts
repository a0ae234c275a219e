/**
 * The test suite's own answer to "do these dependency edges wait on themselves?", written from the contract
 * and kept independent of `machines/beads/cycles.ts`: the ordering kinds are spelled here, and cycles are
 * found by peeling off beads that wait on nothing (Kahn's algorithm) rather than by the production walk
 * from one edge. A property test that checked the store with the production check could not see it go wrong.
 */
export const ORDERING_KINDS: ReadonlySet<string> = new Set([
  'blocks',
  'waits-for',
  'conditional-blocks',
  'parent-child',
]);

export interface Edge {
  from: string;
  to: string;
  type: string;
}

/** The beads on or behind a cycle of ordering edges, sorted; empty when the ordering edges form a DAG. */
export function beadsOnOrderingCycles(edges: readonly Edge[]): string[] {
  const waitsOn = new Map<string, Set<string>>();
  const waitedOnBy = new Map<string, Set<string>>();
  const node = (m: Map<string, Set<string>>, id: string) => m.get(id) ?? m.set(id, new Set()).get(id)!;
  for (const { from, to, type } of edges) {
    if (!ORDERING_KINDS.has(type)) continue;
    node(waitsOn, from).add(to);
    node(waitsOn, to);
    node(waitedOnBy, to).add(from);
    node(waitedOnBy, from);
  }
  const free = [...waitsOn].filter(([, out]) => out.size === 0).map(([id]) => id);
  while (free.length > 0) {
    const id = free.pop()!;
    for (const waiter of waitedOnBy.get(id) ?? []) {
      const out = waitsOn.get(waiter)!;
      out.delete(id);
      if (out.size === 0) free.push(waiter);
    }
    waitsOn.delete(id);
  }
  return [...waitsOn.keys()].sort();
}

/** True when the ordering edges among `edges` contain a cycle (a self-loop included). */
export const orderingCycle = (edges: readonly Edge[]): boolean => beadsOnOrderingCycles(edges).length > 0;
