import { createIndexes, type BeadIndexes } from './indexes.ts';
import type { StoredBead } from './storedBead.ts';

// Its own file so that indexes.ts can use it without importing the model (which imports indexes.ts).
export type { StoredBead } from './storedBead.ts';

/** A bead in the model plus its position in creation order (the seq of its `bead.created`). */
export interface BeadEntry {
  readonly bead: StoredBead;
  readonly ordinal: number;
}

/** What a keyed create recorded: the request hash and the bead it created (the original answer). */
export interface IdempotencyRecord {
  readonly hash: string;
  readonly bead: StoredBead;
}

/**
 * The read model of one city's beads: a fold of the city journal's `bead.*` events. Every field is
 * derived from the events alone, so folding the same log always yields an equal model.
 */
export interface BeadModel {
  /** The id prefix of beads this city creates (`<prefix>-<n>`). */
  readonly prefix: string;
  /** The last journal seq folded (any event type): the city's event index. */
  seq: number;
  /** Beads by id; Map order is creation order. */
  readonly beads: Map<string, BeadEntry>;
  /** The next `<n>` for a new id: one past the largest ever seen with this prefix, deleted ones included. */
  nextNumber: number;
  /** Secondary indexes (status, type, assignee, rig, label, parent, root, creation order). */
  readonly indexes: BeadIndexes;
  /** Keyed creates by `<operation>:<key>`; they outlive the beads they created. */
  readonly idempotency: Map<string, IdempotencyRecord>;
}

/** Metadata key holding the rig a bead belongs to (the wire Bead has no rig field). */
export const RIG_KEY = 'gc.rig';
/** Metadata key of the workflow root a bead belongs to (upstream's graph rule). */
export const ROOT_KEY = 'gc.root_bead_id';
/** Metadata keys recording a keyed create: `<operation>:<Idempotency-Key>` and the request hash. */
export const IDEMPOTENCY_KEY = 'gc.idempotency_key';
export const REQUEST_HASH_KEY = 'gc.request_sha256';

/** An empty model for a city whose ids start with `prefix`. This is a pure function. */
export function createModel(prefix: string): BeadModel {
  return {
    prefix,
    seq: 0,
    beads: new Map(),
    nextNumber: 1,
    indexes: createIndexes(),
    idempotency: new Map(),
  };
}
