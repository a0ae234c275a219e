import type { StoredBead } from './model.ts';

/**
 * Secondary indexes of the bead model, so list queries over a large city read the beads a filter can
 * match instead of every bead. Each maps a value to the ids of the beads that have it. They are
 * derived from the beads alone and kept in step by `evolve`.
 */
export interface BeadIndexes {
  readonly byStatus: Map<string, Set<string>>;
  readonly byType: Map<string, Set<string>>;
  readonly byAssignee: Map<string, Set<string>>;
  readonly byRig: Map<string, Set<string>>;
  readonly byLabel: Map<string, Set<string>>;
  /** Children by parent id. */
  readonly children: Map<string, Set<string>>;
  /** Members by workflow root (metadata `gc.root_bead_id`). */
  readonly roots: Map<string, Set<string>>;
  /** Every bead in creation order, for newest-first walks. */
  readonly order: CreationOrder;
}

export const createIndexes = (): BeadIndexes => ({
  byStatus: new Map(),
  byType: new Map(),
  byAssignee: new Map(),
  byRig: new Map(),
  byLabel: new Map(),
  children: new Map(),
  roots: new Map(),
  order: new CreationOrder(),
});

const RIG = 'gc.rig';
const ROOT = 'gc.root_bead_id';

/**
 * Moves bead `id` in every index from its `before` state to its `after` state (either may be absent:
 * a create, a delete). Deterministic; mutates `indexes`.
 */
export function reindexBead(indexes: BeadIndexes, id: string, before?: StoredBead, after?: StoredBead): void {
  // Most updates leave most indexed fields alone: compare before calling into the maps.
  if (before?.status !== after?.status) move(indexes.byStatus, id, before?.status, after?.status);
  if (before?.issue_type !== after?.issue_type)
    move(indexes.byType, id, before?.issue_type, after?.issue_type);
  if (before?.assignee !== after?.assignee) move(indexes.byAssignee, id, before?.assignee, after?.assignee);
  if (before?.parent !== after?.parent) move(indexes.children, id, before?.parent, after?.parent);
  const bm = before?.metadata;
  const am = after?.metadata;
  if (bm !== am) {
    if (bm?.[RIG] !== am?.[RIG]) move(indexes.byRig, id, bm?.[RIG], am?.[RIG]);
    if (bm?.[ROOT] !== am?.[ROOT]) move(indexes.roots, id, bm?.[ROOT], am?.[ROOT]);
  }
  const was = before?.labels;
  const is = after?.labels;
  if (was === is || (was && is && sameLabels(was, is))) return;
  for (const label of was ?? []) if (!is?.includes(label)) move(indexes.byLabel, id, label, undefined);
  for (const label of is ?? []) if (!was?.includes(label)) move(indexes.byLabel, id, undefined, label);
}

function sameLabels(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function move(index: Map<string, Set<string>>, id: string, from?: string, to?: string): void {
  if (from === to) return;
  if (from) {
    const set = index.get(from);
    set?.delete(id);
    if (set?.size === 0) index.delete(from);
  }
  if (to) {
    let set = index.get(to);
    if (!set) index.set(to, (set = new Set()));
    set.add(id);
  }
}

/**
 * Bead ids in creation order with their ordinals (ascending), walkable newest first from any keyset
 * position. Deleted beads stay as tombstones until they outnumber the live ones, then the log is
 * compacted, so a walk skips at most as many dead entries as it visits live ones.
 */
export class CreationOrder {
  #ids: string[] = [];
  #ordinals: number[] = [];
  #dead = 0;

  /** Appends a bead created with `ordinal` (larger than every ordinal before). */
  push(id: string, ordinal: number): void {
    this.#ids.push(id);
    this.#ordinals.push(ordinal);
  }

  /** Counts one deleted bead; compacts when dead entries outnumber live ones (`isLive` decides). */
  drop(isLive: (id: string, ordinal: number) => boolean): void {
    if (++this.#dead <= this.#ids.length / 2) return;
    const ids: string[] = [];
    const ordinals: number[] = [];
    this.#ids.forEach((id, i) => {
      if (isLive(id, this.#ordinals[i]!)) {
        ids.push(id);
        ordinals.push(this.#ordinals[i]!);
      }
    });
    this.#ids = ids;
    this.#ordinals = ordinals;
    this.#dead = 0;
  }

  /** `[id, ordinal]` pairs newest first, starting below `before` (all when undefined); dead ones included. */
  *newestFirst(before?: number): Generator<[string, number]> {
    let i = this.#ids.length - 1;
    if (before !== undefined) {
      // The last position whose ordinal is below `before`.
      let lo = 0;
      let hi = this.#ids.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.#ordinals[mid]! < before) lo = mid + 1;
        else hi = mid;
      }
      i = lo - 1;
    }
    for (; i >= 0; i--) yield [this.#ids[i]!, this.#ordinals[i]!];
  }
}
