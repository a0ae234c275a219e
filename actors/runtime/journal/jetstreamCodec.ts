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
 * Where a message stands in a multi-record batch (one decision's records). JetStream (2.9) has no atomic
 * batch publish, so a batch is published message by message, each saying `[index, size, id]`, and the
 * first also carries the bodies of the rest (`gc_rest`): whoever finds the batch cut short (its writer
 * died) publishes the rest from there, under the same msg ids, so it lands whole; readers hold an
 * unfinished batch back until then.
 */
export interface BatchMark {
  index: number;
  size: number;
  id: string;
  /** On the first message only: the bodies of messages 1..size-1. */
  rest?: string[];
}

interface StoredBody extends StoredEvent {
  gc_batch?: [number, number, string];
  gc_rest?: string[];
}

/** The msg id of message `index` of batch `id`. This is a pure function. */
export const batchMsgId = (id: string, index: number): string => `${id}:${index}`;

/**
 * The message bodies of one batch (`drafts` stamped with `ts`), each marked; see {@link BatchMark}.
 * This is a pure function.
 */
export function encodeBatch(
  drafts: readonly JournalDraft[],
  ts: string,
  id: string,
): { bodies: string[]; withSeq: (first: number) => JournalEvent[] } {
  const stored = drafts.map((draft) => {
    const { seq: _seq, ...event } = inOrder(0, { ...draft, ts: draft.ts ?? ts });
    return event;
  });
  const n = stored.length;
  const rest = stored.slice(1).map((e, i) => JSON.stringify({ ...e, gc_batch: [i + 1, n, id] }));
  const bodies = [JSON.stringify({ ...stored[0], gc_batch: [0, n, id], gc_rest: rest }), ...rest];
  return { bodies, withSeq: (first) => stored.map((e, i) => ({ seq: first + i, ...e })) };
}

/**
 * The event stored at stream sequence `seq` with message body `body`, and its batch mark if it has one.
 * This is a pure function. Throws `SyntaxError` when the body is not JSON (a message someone else wrote
 * to our subject).
 */
export function decodeMessage(seq: number, body: string): { event: JournalEvent; batch?: BatchMark } {
  const parsed = JSON.parse(body) as StoredBody;
  const event = inOrder(seq, parsed);
  const mark = parsed.gc_batch;
  if (!Array.isArray(mark)) return { event };
  const [index, size, id] = mark;
  return { event, batch: { index, size, id, ...(parsed.gc_rest ? { rest: parsed.gc_rest } : {}) } };
}

/** The event stored at stream sequence `seq` with message body `body`; see {@link decodeMessage}. */
export function decodeEvent(seq: number, body: string): JournalEvent {
  return decodeMessage(seq, body).event;
}

/** True when `batch` is a mark of a batch that continues after this message. Pure. */
export const continues = (batch: BatchMark | undefined): boolean =>
  batch !== undefined && batch.index < batch.size - 1;
