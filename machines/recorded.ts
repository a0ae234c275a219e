import type { EventDraft, JournalEvent } from '../schemas/event.ts';

/**
 * What a machine emits (with XState's `emit`) for its actor to append to the machine's log. The actor
 * appends every `record` of a transition, and only then commits the new snapshot and runs effects.
 */
export interface RecordEvent {
  type: 'record';
  draft: EventDraft;
  /** Dedupe key for the append (JetStream `Nats-Msg-Id`), e.g. `terminal:<request_id>`. */
  msgId?: string;
}

/** Builds a `record` emission. Pure. */
export const recordOf = (draft: EventDraft, msgId?: string): RecordEvent =>
  msgId === undefined ? { type: 'record', draft } : { type: 'record', draft, msgId };

/**
 * A recorded event read back from a log (replay and catch-up feed these to `…FromRecord` mappers, which
 * decode the payloads they fold with `payloadAs`: a damaged one is a DamagedRecordError with its log and
 * seq, never a silent default).
 */
export type Recorded = Pick<JournalEvent, 'seq' | 'type' | 'ts' | 'subject' | 'payload'>;
