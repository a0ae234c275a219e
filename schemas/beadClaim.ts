import { Type, type Static } from 'typebox';
import { BeadSchema } from './beads.ts';

/** `POST /bead/{id}/claim` body: who takes the bead (bd's actor, e.g. the session's name). */
export const BeadClaimBodySchema = Type.Object(
  { claimant: Type.String({ minLength: 1, description: 'The assignee the claim writes.' }) },
  { additionalProperties: false },
);
export type BeadClaimBody = Static<typeof BeadClaimBodySchema>;

/** `POST /bead/{id}/claim` answer: the bead, now held by the claimant and in progress. */
export const BeadClaimResponseSchema = BeadSchema;
