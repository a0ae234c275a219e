import { depsOf } from './beadShape.ts';
import type { BeadModel } from './model.ts';

/**
 * Edge kinds that order work: a cycle of them would leave every bead on it waiting forever, so they are
 * refused. Other kinds (relates-to, tracks, discovered-from, …) only link and may loop.
 */
export const ORDERING_DEP_TYPES: ReadonlySet<string> = new Set([
  'blocks',
  'waits-for',
  'conditional-blocks',
  'parent-child',
]);

/** Edge kinds that hold a bead out of the ready view until their target is closed (upstream's rule). */
export const BLOCKING_DEP_TYPES: ReadonlySet<string> = new Set(['blocks', 'waits-for', 'conditional-blocks']);

/**
 * True when adding the ordering edge `id → dependsOn` closes a cycle: `dependsOn` already reaches `id`
 * through ordering edges (or is `id`). Visits each bead at most once. This is a pure function.
 */
export function dependencyCycle(model: BeadModel, id: string, dependsOn: string): boolean {
  const seen = new Set<string>();
  const stack = [dependsOn];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (current === id) return true;
    if (seen.has(current)) continue;
    seen.add(current);
    const bead = model.beads.get(current)?.bead;
    if (!bead) continue;
    for (const dep of depsOf(bead)) {
      if (ORDERING_DEP_TYPES.has(dep.type)) stack.push(dep.depends_on_id);
    }
  }
  return false;
}

/** True when making `parent` the parent of `id` would make `id` its own ancestor. This is a pure function. */
export function parentCycle(model: BeadModel, id: string, parent: string): boolean {
  const seen = new Set<string>();
  for (let p: string | undefined = parent; p; p = model.beads.get(p)?.bead.parent) {
    if (p === id) return true;
    if (seen.has(p)) return false;
    seen.add(p);
  }
  return false;
}
