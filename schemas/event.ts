import { Type, type Static } from 'typebox';
import type { CatalogEventType, PayloadOf } from './eventCatalog.ts';

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

/** The fields of a draft every type shares: the journal assigns `seq` (and `ts` when absent). */
interface DraftBase {
  actor: string;
  subject?: string;
  message?: string;
  ts?: string;
}

/**
 * A draft of a catalogue event (schemas/eventCatalog.ts): `type` is a catalogue type and `payload` what its
 * schema types, so an unknown type or a wrong payload is a compile error. `EventDraft` alone is the union
 * over every type, discriminated by `type`.
 */
export type EventDraft<K extends CatalogEventType = CatalogEventType> = {
  [T in K]: DraftBase & { type: T; payload: PayloadOf<T> };
}[K];

/**
 * A user's custom event (the emit-event route only): any type string and no payload. Explicitly untyped:
 * nothing folds it, and the route refuses a catalogue type whose payload it cannot supply.
 */
export type CustomEventDraft = DraftBase & { type: string };

/**
 * What the storage layer (`Journal.append`) takes: a record of any type with any payload. A journal stores
 * what it is given; the typing lives in the writers above it (`recordOf` and the log runtime, the bead
 * deciders' `Decision`, the emit route's {@link CustomEventDraft}).
 */
export type JournalDraft = DraftBase & { type: string; payload?: unknown };
