/**
 * Rig-scoped orders, as upstream names and routes them: an order read from a rig's formula layers is
 * keyed `<name>:rig:<rig>` (city orders keep `<name>`), its bare pool is the rig's (`<rig>/<pool>`), and
 * a bare name reaches it only while no other order shares that name. Pure.
 */

/** An order's scoped name: `<name>` for a city order, `<name>:rig:<rig>` for a rig's. Pure. */
export const scopedOrderName = (name: string, rig?: string): string => (rig ? `${name}:rig:${rig}` : name);

/** `pool` qualified for a rig order (`<rig>/<pool>`); a qualified pool or a city order's as written. Pure. */
export const qualifyPool = (pool: string, rig?: string): string =>
  !rig || pool.includes('/') ? pool : `${rig}/${pool}`;

/**
 * The rig an order works in (upstream `orderRigSuspended`): the rig part of its qualified pool, else its
 * own rig; undefined for a city order with a city pool. Its firing waits while that rig is suspended. Pure.
 */
export function targetRig(order: { pool?: string; rig?: string }): string | undefined {
  const pool = order.pool === undefined ? '' : qualifyPool(order.pool, order.rig);
  const slash = pool.indexOf('/');
  return slash > 0 ? pool.slice(0, slash) : order.rig;
}

/** What a name resolves to among the orders: one order, none, or several (a bare name in many rigs). */
export type OrderMatch<T> = { order: T } | { ambiguous: string[] } | undefined;

/**
 * Upstream `resolveOrder`: the scoped name first (always unambiguous), then the bare name; a bare name
 * that several rigs' orders share is ambiguous, with their scoped names to choose from. Pure.
 */
export function resolveOrder<T extends { name: string; scopedName: string }>(
  orders: Iterable<T>,
  name: string,
): OrderMatch<T> {
  const byName: T[] = [];
  for (const o of orders) {
    if (o.scopedName === name) return { order: o };
    if (o.name === name) byName.push(o);
  }
  if (byName.length === 0) return undefined;
  if (byName.length === 1) return { order: byName[0]! };
  return { ambiguous: byName.map((o) => o.scopedName) };
}
