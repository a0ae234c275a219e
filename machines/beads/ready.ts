import type { Bead } from '../../schemas/beads.ts';
import { depsOf } from './beadShape.ts';
import { BLOCKING_DEP_TYPES } from './cycles.ts';
import type { BeadModel, StoredBead } from './model.ts';

/**
 * Types that record bookkeeping rather than work, never offered as ready (upstream's list, plus
 * `convoy`: a convoy is a bundle of work, not work a worker can pick up).
 */
export const BOOKKEEPING_TYPES: ReadonlySet<string> = new Set([
  'merge-request',
  'gate',
  'molecule',
  'message',
  'session',
  'agent',
  'role',
  'rig',
  'convoy',
]);

/**
 * True when a blocking dependency (blocks, waits-for, conditional-blocks) points at a bead that exists
 * and is not closed. A deleted blocker no longer blocks. This is a pure function.
 */
export function isBlocked(model: BeadModel, bead: StoredBead): boolean {
  for (const dep of depsOf(bead)) {
    if (!BLOCKING_DEP_TYPES.has(dep.type)) continue;
    const target = model.beads.get(dep.depends_on_id)?.bead;
    if (target && target.status !== 'closed') return true;
  }
  return false;
}

/**
 * The ready rule: open, not a bookkeeping type, not blocked, and not deferred past `now` (ms since the
 * epoch). This is a pure function.
 */
export function isReady(model: BeadModel, bead: StoredBead, now: number): boolean {
  if (bead.status !== 'open' || BOOKKEEPING_TYPES.has(bead.issue_type)) return false;
  if (bead.defer_until && Date.parse(bead.defer_until) > now) return false;
  return !isBlocked(model, bead);
}

/** The wire bead: the stored one plus the computed `is_blocked`. This is a pure function. */
export const present = (model: BeadModel, bead: StoredBead): Bead => ({
  ...bead,
  is_blocked: isBlocked(model, bead),
});

/**
 * Every ready bead, most urgent first: by priority (0 first; unset last), then oldest first.
 * This is a pure function.
 */
export function readyBeads(model: BeadModel, now: number): Bead[] {
  const ready: Array<{ bead: StoredBead; ordinal: number }> = [];
  for (const id of model.indexes.byStatus.get('open') ?? []) {
    const entry = model.beads.get(id);
    if (entry && isReady(model, entry.bead, now)) ready.push(entry);
  }
  ready.sort((a, b) => {
    const pa = a.bead.priority ?? Number.MAX_SAFE_INTEGER;
    const pb = b.bead.priority ?? Number.MAX_SAFE_INTEGER;
    return pa - pb || a.ordinal - b.ordinal;
  });
  return ready.map((e) => ({ ...e.bead, is_blocked: false }));
}
