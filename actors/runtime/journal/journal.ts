import type { EventDraft, JournalDraft, JournalEvent } from '../../../schemas/event.ts';

export type { EventDraft, JournalDraft, JournalEvent };

/** Name of the supervisor's own log in composite cursors. */
export const SUPERVISOR_LOG = '__supervisor__';

/** Filters of `Journal.list`; all given fields are ANDed. */
export interface ListFilter {
  /** Exact event type. */
  type?: string;
  /** Only events whose type starts with this (a family's, as `extmsg.`). */
  typePrefix?: string;
  /** Exact actor. */
  actor?: string;
  /** Only events whose `ts` is at or after this instant. */
  since?: Date;
  /** Only events with `seq > afterSeq`. */
  afterSeq?: number;
  /** Only events with `seq < beforeSeq` (keyset paging backwards). */
  beforeSeq?: number;
  /** At most this many events (0 or absent: no limit). */
  limit?: number;
  /**
   * `asc` (default): oldest first, `limit` keeps the oldest matches.
   * `desc`: newest first, `limit` keeps the newest matches (a tail read that never scans the whole log
   * when no other filter is set).
   */
  order?: 'asc' | 'desc';
}

export interface AppendOptions {
  /**
   * The seq the caller believes is the log's head. When given and stale, the append fails with
   * `SeqConflictError` and nothing is written (fencing).
   */
  expectedSeq?: number;
  /** Dedupe key (JetStream `Nats-Msg-Id`); a retried append with the same id is not written twice. */
  msgId?: string;
}

/**
 * A live subscription: yields every event with `seq > afterSeq` in order, then live ones as they are
 * appended. Iteration ends cleanly (no throw) after `close()` or when the journal closes.
 */
export interface Subscription extends AsyncIterable<JournalEvent> {
  close(): Promise<void>;
}

/** How a subscriber uses the events it is handed. */
export interface SubscribeOptions {
  /**
   * The subscriber never changes an event it is handed, so a backend may hand it the same objects as
   * every other such subscriber (the memory journal hands everyone the same objects anyway): N streams
   * of one log then decode each new event once, not N times.
   */
  readOnly?: boolean;
}

/**
 * One append-only event log (a city's, or the supervisor's). Seqs start at 1 and are gap-free.
 * Every method may throw `UnavailableError` when the backing store (disk, broker) cannot serve.
 */
export interface Journal {
  /** The log's name: the city name, or `__supervisor__`. */
  readonly name: string;
  /** Appends one event; resolves with it as stored (seq and ts assigned) once it is durable. */
  append(draft: JournalDraft, options?: AppendOptions): Promise<JournalEvent>;
  /**
   * Appends the drafts of one decision as one atomic batch: all of them are stored, consecutively, or none
   * is. `expectedSeq` fences the first draft and `msgId` dedupes the whole batch. A backend that cannot
   * store a batch atomically leaves this out; the log runtime then appends the drafts one by one and
   * answers `OutcomeUnknownError` when only some were stored.
   */
  appendBatch?(drafts: readonly JournalDraft[], options?: AppendOptions): Promise<JournalEvent[]>;
  list(filter?: ListFilter): Promise<JournalEvent[]>;
  /** The latest seq, 0 when the log is empty. */
  head(): Promise<number>;
  subscribe(afterSeq: number, options?: SubscribeOptions): Subscription;
  /** Ends every subscription and releases the log's resources. Idempotent. */
  close(): Promise<void>;
}

/** Where a log lives: its name and, for the file backend, its JSONL path. */
export interface LogLocation {
  name: string;
  /** `<city dir>/.gc/events.jsonl` or `$GC_HOME/events.jsonl`; the jetstream backend derives its stream from it. */
  file: string;
}

/** A journal backend opens logs. One backend instance serves a whole supervisor. */
export interface JournalBackend {
  readonly kind: 'file' | 'jetstream' | 'memory';
  open(location: LogLocation): Promise<Journal>;
  /** Closes every log it opened, and its connection. */
  close(): Promise<void>;
}
