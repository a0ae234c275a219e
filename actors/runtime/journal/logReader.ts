import type { FileHandle } from 'node:fs/promises';
import { UnavailableError } from '../errors.ts';
import { matchesFilter } from './filter.ts';
import type { JournalEvent, ListFilter } from './journal.ts';
import { CHUNK_BYTES, MAX_CHUNK_BYTES, readBackward, readForwardAs } from './lineReader.ts';
import { readBackwardMatching, readForwardMatching } from './needleReader.ts';
import type { LineParser } from './lineReader.ts';
import type { Notifier } from './notifier.ts';
import type { OffsetIndex } from './offsetIndex.ts';
import type { RecentEvents } from './recentEvents.ts';

/** Wraps a failure of the journal's file as the retryable `journal_unavailable` error. */
export function journalUnavailable(what: string, err: unknown): UnavailableError {
  if (err instanceof UnavailableError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new UnavailableError(`${what}: ${reason}`, 'journal_unavailable', { cause: err });
}

/** How {@link LogReader.replay} reads lines (see there). */
export interface ReplayOptions<T> {
  wants?: (offset: number) => boolean;
  decode?: (buf: Buffer, start: number, end: number) => T | undefined;
}

/** A seq bound, or `fallback` when it is absent or NaN (which no seq compares with). */
const bound = (seq: number | undefined, fallback: number): number =>
  seq === undefined || Number.isNaN(seq) ? fallback : seq;

/**
 * The read path of a JSONL log: seeks by seq through the offset index and reads in chunks, so no read
 * holds more than a chunk of the file (plus the events it returns) in memory.
 */
export class LogReader {
  readonly #handle: FileHandle;
  readonly #index: OffsetIndex;
  readonly #file: string;
  /** Bytes of acknowledged lines now; reads never go past it, so they never see a batch being written. */
  readonly #size: () => number;

  readonly #recent: RecentEvents | undefined;

  constructor(
    handle: FileHandle,
    index: OffsetIndex,
    file: string,
    size: () => number,
    recent?: RecentEvents,
  ) {
    this.#handle = handle;
    this.#index = index;
    this.#file = file;
    this.#size = size;
    this.#recent = recent;
  }

  /**
   * Lists matching events: `afterSeq`/`beforeSeq` bound the bytes read, `order: 'desc'` reads backwards
   * from the end and stops at `limit`.
   * @throws UnavailableError when the file cannot be read.
   */
  async list(filter: ListFilter): Promise<JournalEvent[]> {
    const head = this.#index.head;
    const from = Math.max(1, Math.floor(bound(filter.afterSeq, 0)) + 1);
    const to = Math.min(head, Math.ceil(bound(filter.beforeSeq, Infinity)) - 1);
    const limit = filter.limit && filter.limit > 0 ? filter.limit : Infinity;
    const out: JournalEvent[] = [];
    if (from > to) return out;
    const [start, end] = this.#range(from, to);
    // A type filter first looks for the type's exact text in the line: the lines that cannot match are
    // never parsed (a lookup of a rare type walks a large log at the speed of reading it). Lines are compact
    // JSON, as this journal and upstream's recorder write them. A prefix is its text without the closing quote.
    const needle =
      filter.type !== undefined
        ? `"type":${JSON.stringify(filter.type)}`
        : filter.typePrefix !== undefined
          ? `"type":${JSON.stringify(filter.typePrefix).slice(0, -1)}`
          : undefined;
    const parse: LineParser<JournalEvent> = (buf, begin, stop, offset) => {
      const event = this.#parse(buf.toString('utf8', begin, stop), offset);
      return event && matchesFilter(event, filter) ? event : undefined;
    };
    // With a needle only the lines holding it are cut out of each chunk and parsed.
    const bytes = needle === undefined ? undefined : Buffer.from(needle);
    const events =
      bytes === undefined
        ? undefined
        : filter.order === 'desc'
          ? readBackwardMatching(this.#handle, start, end, bytes, parse, limit)
          : readForwardMatching(this.#handle, start, end, bytes, parse, limit);
    if (filter.order === 'desc' && events === undefined) {
      for await (const chunk of this.#guard(readBackward(this.#handle, start, end))) {
        for (const line of chunk) {
          const event = this.#parse(line.text, line.offset);
          if (event && matchesFilter(event, filter)) out.push(event);
          if (out.length >= limit) return out;
        }
      }
      return out;
    }
    const lines =
      events ?? readForwardAs(this.#handle, start, end, parse, CHUNK_BYTES, MAX_CHUNK_BYTES, limit);
    for await (const chunk of this.#guard(lines)) {
      for (const event of chunk) out.push(event);
    }
    return out;
  }

  /**
   * Hands `visit` each event with `afterSeq` < seq ≤ `toSeq`, oldest first, with the byte offset of its
   * line, one at a time as it is read: nothing is collected, so a replay of millions of events leaves
   * only what `visit` keeps. Options: `wants` is asked each line's offset first (increasing), and false
   * skips the line; `decode` may read a line from its bytes (answering at least its seq), and the line is
   * then not parsed (undefined: parse it). What `visit` throws stops the read and is rethrown as it is.
   * @throws UnavailableError when the file cannot be read.
   */
  async replay<T extends { seq: number }>(
    afterSeq: number,
    toSeq: number,
    visit: (record: JournalEvent | T, offset: number) => void,
    options: ReplayOptions<T> = {},
  ): Promise<void> {
    const { wants, decode } = options;
    const from = Math.max(1, Math.floor(bound(afterSeq, 0)) + 1);
    const to = Math.min(this.#index.head, Math.floor(toSeq));
    if (from > to) return;
    const [start, end] = this.#range(from, to);
    let failure: { err: unknown } | undefined;
    // Answers nothing but a visitor's failure, which (with limit 1) ends the read there.
    const parse: LineParser<true> = (buf, begin, stop, offset) => {
      if (wants && !wants(offset)) return undefined;
      const decoded = decode?.(buf, begin, stop);
      let record: JournalEvent | T | undefined;
      if (decoded === undefined) record = this.#parse(buf.toString('utf8', begin, stop), offset);
      else if (this.#index.holds(decoded.seq, offset)) record = decoded;
      if (!record || record.seq > to) return undefined;
      try {
        visit(record, offset);
      } catch (err) {
        failure = { err };
        return true;
      }
      return undefined;
    };
    const lines = readForwardAs(this.#handle, start, end, parse, CHUNK_BYTES, MAX_CHUNK_BYTES, 1, true);
    for await (const chunk of this.#guard(lines)) void chunk;
    if (failure) throw failure.err;
  }

  /**
   * Yields every event with seq > `afterSeq`: those on disk first, then each batch as `notifier` reports
   * it. Ends when `closed()` turns true (checked before each event and after each wake) or the notifier
   * closes. `shared`: the caller only reads the events, so recent ones may be the objects other such
   * callers get (decoded once for all of them).
   * @throws UnavailableError when the file cannot be read.
   */
  async *follow(
    afterSeq: number,
    notifier: Notifier,
    closed: () => boolean,
    shared = false,
  ): AsyncGenerator<JournalEvent> {
    let next = Math.max(1, Math.floor(bound(afterSeq, 0)) + 1);
    while (!closed()) {
      const head = this.#index.head;
      if (next > head) {
        // Checking the head and registering the wait happen in one turn, so no append slips between.
        if (notifier.closed) return;
        await notifier.wait();
        continue;
      }
      const cached = this.#recent?.range(next, head, shared);
      if (cached) {
        for (const event of cached) {
          if (closed()) return;
          yield event;
        }
        next = head + 1;
        continue;
      }
      const [start, end] = this.#range(next, head);
      const parse: LineParser<JournalEvent> = (buf, begin, stop, offset) =>
        this.#parse(buf.toString('utf8', begin, stop), offset);
      const events = readForwardAs(this.#handle, start, end, parse, CHUNK_BYTES, MAX_CHUNK_BYTES);
      for await (const chunk of this.#guard(events)) {
        for (const event of chunk) {
          if (closed()) return;
          if (event.seq < next) continue;
          next = event.seq + 1;
          yield event;
        }
      }
      next = Math.max(next, head + 1);
    }
  }

  /** The event of the line at `offset`, or undefined for a line the index does not hold (corrupt, or a stray copy). */
  #parse(text: string, offset: number): JournalEvent | undefined {
    try {
      const value = JSON.parse(text) as JournalEvent | null;
      return value && this.#index.holds(value.seq, offset) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  /** The byte range holding seqs `from..to` (1 ≤ from ≤ to ≤ head). */
  #range(from: number, to: number): [start: number, end: number] {
    const start = this.#index.offsetOf(from)!;
    const end = to < this.#index.head ? this.#index.offsetOf(to + 1)! : this.#size();
    return [start, end];
  }

  async *#guard<T>(lines: AsyncGenerator<T[]>): AsyncGenerator<T[]> {
    try {
      yield* lines;
    } catch (err) {
      throw journalUnavailable(`cannot read journal ${this.#file}`, err);
    }
  }
}
