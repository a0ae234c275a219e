/**
 * Upstream's default pool demand (a template without `scale_check`): the work routed to it that no one
 * holds yet. Counted per target of `gc.routed_to`: ready unassigned beads, in-progress unassigned beads,
 * and open molecules (a workflow waiting for its worker). Reads only the beads not closed. Pure.
 */
import type { BeadModel, StoredBead } from '../beads/index.ts';
import { isReady } from '../beads/index.ts';

export const ROUTED_TO = 'gc.routed_to';

/** Routed demand by target (a template's qualified name). Pure. */
export function routedDemand(model: BeadModel, now: number): Map<string, number> {
  const demand = new Map<string, number>();
  const count = (status: string, wanted: (bead: StoredBead) => boolean): void => {
    for (const id of model.indexes.byStatus.get(status) ?? []) {
      const bead = model.beads.get(id)?.bead;
      const target = bead?.metadata?.[ROUTED_TO];
      if (bead && target && wanted(bead)) demand.set(target, (demand.get(target) ?? 0) + 1);
    }
  };
  count('open', (b) => b.issue_type === 'molecule' || (!b.assignee && isReady(model, b, now)));
  count('in_progress', (b) => !b.assignee);
  return demand;
}
