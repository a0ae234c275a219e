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

/** A recorded event read back from a log (replay and catch-up feed these to `…FromRecord` mappers). */
export type Recorded = Pick<JournalEvent, 'type' | 'ts' | 'subject' | 'payload'>;

/** The payload as a plain object (empty when absent or not an object). Pure. */
export function payloadOf(event: Recorded): Record<string, unknown> {
  const p = event.payload;
  return p !== null && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : {};
}

/** A string field of the payload, or '' when missing. Pure. */
export const payloadString = (event: Recorded, key: string): string => {
  const v = payloadOf(event)[key];
  return typeof v === 'string' ? v : '';
};
