import type { StoredBead } from './storedBead.ts';

/** A value → ids index split by closedness: most reads leave closed beads out, and then count in O(1). */
export interface HalvedIndex {
  /** Beads not closed. */
  readonly open: Map<string, Set<string>>;
  readonly closed: Map<string, Set<string>>;
}

/**
 * Secondary indexes of the bead model, so list queries over a large city read the beads a filter can
 * match instead of every bead. Each maps a value to the ids of the beads that have it. They are
 * derived from the beads alone and kept in step by `evolve`.
 */
export interface BeadIndexes {
  readonly byStatus: Map<string, Set<string>>;
  readonly byType: HalvedIndex;
  readonly byAssignee: HalvedIndex;
  readonly byRig: HalvedIndex;
  readonly byLabel: HalvedIndex;
  /** Children by parent id. */
  readonly children: Map<string, Set<string>>;
  /** Members by workflow root (metadata `gc.root_bead_id`). */
  readonly roots: Map<string, Set<string>>;
  /** Every bead in creation order, for newest-first walks. */
  readonly order: CreationOrder;
}

const halved = (): HalvedIndex => ({ open: new Map(), closed: new Map() });

export const createIndexes = (): BeadIndexes => ({
  byStatus: new Map(),
  byType: halved(),
  byAssignee: halved(),
  byRig: halved(),
  byLabel: halved(),
  children: new Map(),
  roots: new Map(),
  order: new CreationOrder(),
});

const RIG = 'gc.rig';
const ROOT = 'gc.root_bead_id';
const NO_LABELS: readonly string[] = [];

/**
 * Moves bead `id` in every index from its `before` state to its `after` state (either may be absent:
 * a create, a delete). Deterministic; mutates `indexes`.
 */
export function reindexBead(indexes: BeadIndexes, id: string, before?: StoredBead, after?: StoredBead): void {
  // Most updates leave most indexed fields alone: compare before calling into the maps.
  if (before?.status !== after?.status) move(indexes.byStatus, id, before?.status, after?.status);
  if (before?.parent !== after?.parent) move(indexes.children, id, before?.parent, after?.parent);
  const bm = before?.metadata;
  const am = after?.metadata;
  if (bm?.[ROOT] !== am?.[ROOT]) move(indexes.roots, id, bm?.[ROOT], am?.[ROOT]);
  const was = before ? (before.status === 'closed' ? 'closed' : 'open') : undefined;
  const is = after ? (after.status === 'closed' ? 'closed' : 'open') : undefined;
  field(indexes.byType, id, was, is, before?.issue_type, after?.issue_type);
  field(indexes.byAssignee, id, was, is, before?.assignee, after?.assignee);
  field(indexes.byRig, id, was, is, bm?.[RIG], am?.[RIG]);
  const wasLabels = before?.labels ?? NO_LABELS;
  const isLabels = after?.labels ?? NO_LABELS;
  if (was === is && (wasLabels === isLabels || sameLabels(wasLabels, isLabels))) return;
  for (const label of wasLabels) {
    if (was !== is || !isLabels.includes(label)) move(indexes.byLabel[was!], id, label, undefined);
  }
  for (const label of isLabels) {
    if (was !== is || !wasLabels.includes(label)) move(indexes.byLabel[is!], id, undefined, label);
  }
}

/**
 * Indexes every bead of `beads` (in its order) into `indexes`, which hold none of them yet: the same sets
 * `reindexBead(indexes, id, undefined, bead)` bead by bead would build, in the same order. Ids are gathered
 * per value first and each set made whole, which at start-up costs half what growing each set an id at a
 * time did. Deterministic; mutates `indexes` (not its creation order).
 */
export function indexAll(
  indexes: BeadIndexes,
  beads: ReadonlyMap<string, { readonly bead: StoredBead }>,
): void {
  const byStatus = new Gather(indexes.byStatus);
  const children = new Gather(indexes.children);
  const roots = new Gather(indexes.roots);
  const halves = (index: HalvedIndex) => ({ open: new Gather(index.open), closed: new Gather(index.closed) });
  const byType = halves(indexes.byType);
  const byAssignee = halves(indexes.byAssignee);
  const byRig = halves(indexes.byRig);
  const byLabel = halves(indexes.byLabel);
  for (const [id, { bead }] of beads) {
    byStatus.add(bead.status, id);
    children.add(bead.parent, id);
    roots.add(bead.metadata?.[ROOT], id);
    const half = bead.status === 'closed' ? 'closed' : 'open';
    byType[half].add(bead.issue_type, id);
    byAssignee[half].add(bead.assignee, id);
    byRig[half].add(bead.metadata?.[RIG], id);
    for (const label of bead.labels ?? NO_LABELS) byLabel[half].add(label, id);
  }
  for (const gather of [byStatus, children, roots]) gather.settle();
  for (const pair of [byType, byAssignee, byRig, byLabel]) {
    pair.open.settle();
    pair.closed.settle();
  }
}

/** Ids gathered per value for one index map, then put into it as sets (see `indexAll`). */
class Gather {
  readonly #ids = new Map<string, string[]>();

  constructor(private readonly index: Map<string, Set<string>>) {}

  /** As `move(index, id, undefined, value)`: an empty or absent value is not indexed. */
  add(value: string | undefined, id: string): void {
    if (!value) return;
    const ids = this.#ids.get(value);
    if (ids) ids.push(id);
    else this.#ids.set(value, [id]);
  }

  settle(): void {
    for (const [value, ids] of this.#ids) {
      const set = this.index.get(value);
      if (set) for (const id of ids) set.add(id);
      else this.index.set(value, new Set(ids));
    }
  }
}

/** Moves `id` from value `from` in half `was` to value `to` in half `is` of a halved index. */
function field(
  index: HalvedIndex,
  id: string,
  was: 'open' | 'closed' | undefined,
  is: 'open' | 'closed' | undefined,
  from: string | undefined,
  to: string | undefined,
): void {
  if (was === is) {
    if (from !== to) move(index[is!], id, from, to);
    return;
  }
  if (was) move(index[was], id, from, undefined);
  if (is) move(index[is], id, undefined, to);
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

  /** Takes back the last `push` (a speculative create undone). */
  pop(): void {
    this.#ids.pop();
    this.#ordinals.pop();
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
