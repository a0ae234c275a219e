import type { JournalDraft, JournalEvent } from './journal.ts';

/** The stored form of an event: everything but `seq`, which is the message's stream sequence. */
export type StoredEvent = Omit<JournalEvent, 'seq'>;

/**
 * The event's fields in wire order (`seq`, `type`, `ts`, `actor`, then the optional ones), the same order
 * the file backend writes, so both backends serialise an event identically. Fields outside the event
 * schema are dropped. This is a pure function.
 */
function inOrder(seq: number, e: JournalDraft & { ts: string }): JournalEvent {
  const event: JournalEvent = { seq, type: e.type, ts: e.ts, actor: e.actor };
  if (e.subject !== undefined) event.subject = e.subject;
  if (e.message !== undefined) event.message = e.message;
  if (e.payload !== undefined) event.payload = e.payload;
  return event;
}

/**
 * The message body for `draft` with `ts` filled: its JSON without `seq` (the stream sequence is the
 * only source of truth for it), plus the event as it will read back once `seq` is known.
 * This is a pure function.
 */
export function encodeEvent(
  draft: JournalDraft,
  ts: string,
): { body: string; withSeq: (seq: number) => JournalEvent } {
  const { seq: _seq, ...stored } = inOrder(0, { ...draft, ts });
  return { body: JSON.stringify(stored), withSeq: (seq) => ({ seq, ...stored }) };
}

/**
 * The event stored at stream sequence `seq` with message body `body`. This is a pure function.
 * Throws `SyntaxError` when the body is not JSON (a message someone else wrote to our subject).
 */
export function decodeEvent(seq: number, body: string): JournalEvent {
  return inOrder(seq, JSON.parse(body) as StoredEvent);
}
