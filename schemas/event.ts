import { Type, type Static } from 'typebox';

/**
 * One recorded event as it is stored in a journal and as it goes on the wire at city scope
 * (the fields of upstream's EventStreamEnvelope, without `workflow`).
 * `seq` is the position in its log: 1-based, gap-free, monotonically increasing.
 */
export const JournalEventSchema = Type.Object(
  {
    seq: Type.Integer({ minimum: 1 }),
    type: Type.String({ minLength: 1 }),
    ts: Type.String({ description: 'RFC 3339 timestamp with a numeric UTC offset or Z' }),
    actor: Type.String(),
    subject: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    payload: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type JournalEvent = Static<typeof JournalEventSchema>;

/** What a caller hands to `Journal.append`: the journal assigns `seq` (and `ts` when absent). */
export type EventDraft = Omit<JournalEvent, 'seq' | 'ts'> & { ts?: string };
