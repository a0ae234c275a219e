import type { Bead } from '../../schemas/beads.ts';

/** A bead as stored in events and in the model: the wire bead without the computed `is_blocked`. */
export type StoredBead = Omit<Bead, 'is_blocked'>;
