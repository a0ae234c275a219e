import { performance } from 'node:perf_hooks';
import type { JournalEvent, ListFilter, Subscription } from './journal.ts';

/** What a shared tail reads its log through. */
export interface TailSource {
  /** A live subscription of its own (one per tail, whatever the number of readers). */
  subscribe(afterSeq: number): Subscription;
  list(filter: ListFilter): Promise<JournalEvent[]>;
}

/** Events a reader may have queued before it is sent back to paged reads (bounds a slow reader's memory). */
const MAX_QUEUED = 4096;
const PAGE = 1000;
/** The longest the tail hands events out before it lets the event loop turn (I/O, timers). */
const SLICE_MS = 10;

/**
 * One live subscription of a log shared by every read-only subscriber of it: N streams of one city cost
 * the broker one consumer, not N, and each event is decoded once. A reader first catches up with paged
 * `list` reads until it is at the tail's position, then takes the tail's events as they arrive (the same
 * objects for all: read-only). A reader that falls `MAX_QUEUED` events behind is detached and catches up
 * by pages again, so a slow one never holds the others or grows without bound. The tail subscription
 * starts with its first reader and is closed with its last.
 */
export class SharedTail {
  readonly #readers = new Set<TailReader>();
  #source: Subscription | undefined;
  #pumping: Promise<void> | undefined;
  /** The seq the tail has delivered up to (its start while nothing arrived yet). */
  #pos = -1;
  #closed = false;

  constructor(private readonly log: TailSource) {}

  /** A read-only subscription from `afterSeq` (see the class). */
  subscribe(afterSeq: number): Subscription {
    const reader = new TailReader(this, afterSeq);
    this.#readers.add(reader);
    return reader;
  }

  /** Ends every reader and the tail's subscription. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const r of [...this.#readers]) r.end();
    await this.#stopSource();
  }

  /** @internal Pages of the log after `seq` (a reader catching up). */
  page(seq: number): Promise<JournalEvent[]> {
    return this.log.list({ afterSeq: seq, limit: PAGE });
  }

  /**
   * @internal Attaches `reader` at its `last` seq when the tail is not ahead of it (synchronous, so no
   * event can slip between the check and the attach); false: it must read another page first.
   */
  attach(reader: TailReader): boolean {
    if (this.#closed) {
      reader.end();
      return true;
    }
    if (!this.#source) this.#startSource(reader.last);
    if (this.#pos > reader.last) return false;
    reader.attached = true;
    return true;
  }

  /** @internal A reader closed: the tail goes with the last one. */
  leave(reader: TailReader): Promise<void> {
    this.#readers.delete(reader);
    if (this.#readers.size === 0) return this.#stopSource();
    return Promise.resolve();
  }

  #startSource(from: number): void {
    this.#pos = from;
    const source = this.log.subscribe(from);
    this.#source = source;
    this.#pumping = (async () => {
      try {
        let slice = performance.now();
        for await (const event of source) {
          this.#pos = event.seq;
          for (const reader of this.#readers) if (reader.attached) reader.push(event);
          // A burst handed to hundreds of readers is one long chain of microtasks: without a turn of the
          // event loop now and then, no socket is read meanwhile (a lease renewal's answer waited seconds
          // behind a fan-out, and the lease expired under its live owner).
          if (performance.now() - slice > SLICE_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            slice = performance.now();
          }
        }
        // Ended without an error: the journal closed.
        if (this.#source === source) for (const r of [...this.#readers]) r.end();
      } catch (err) {
        if (this.#source !== source) return;
        for (const r of [...this.#readers]) r.fail(err);
      } finally {
        if (this.#source === source) this.#source = undefined;
      }
    })();
  }

  async #stopSource(): Promise<void> {
    const source = this.#source;
    const pumping = this.#pumping;
    this.#source = undefined;
    this.#pumping = undefined;
    this.#pos = -1;
    if (source) await source.close().catch(() => undefined);
    await pumping;
  }
}

/** One read-only subscriber of a `SharedTail`. */
class TailReader implements Subscription {
  /** The seq of the last event handed to this reader's consumer (or queued for it while attached). */
  last: number;
  attached = false;
  #queue: JournalEvent[] = [];
  #wake: (() => void) | undefined;
  #done = false;
  #error: unknown = undefined;
  #closing: Promise<void> | undefined;

  constructor(
    private readonly tail: SharedTail,
    afterSeq: number,
  ) {
    this.last = afterSeq;
  }

  /** From the tail: one live event. */
  push(event: JournalEvent): void {
    if (event.seq <= this.last) return;
    if (this.#queue.length >= MAX_QUEUED) {
      // Too far behind: back to pages from what it has queued, the tail goes on without it.
      this.attached = false;
      this.#notify();
      return;
    }
    this.#queue.push(event);
    this.last = event.seq;
    this.#notify();
  }

  end(): void {
    this.#done = true;
    this.#notify();
  }

  fail(err: unknown): void {
    this.#error = err;
    this.end();
  }

  async *#iterate(): AsyncGenerator<JournalEvent> {
    try {
      while (!this.#done) {
        if (!this.attached) {
          // Catch up by pages from the last event already handed out (what is queued is read again).
          const from = this.#queue.length > 0 ? this.#queue[0]!.seq - 1 : this.last;
          this.#queue = [];
          this.last = from;
          const page = await this.tail.page(from);
          if (this.#done) break;
          for (const event of page) {
            this.last = event.seq;
            yield event;
            if (this.#done) return;
          }
          // A short page reached the head as it was: join the tail unless it is already past us.
          if (page.length < PAGE) this.tail.attach(this);
          continue;
        }
        const next = this.#queue.shift();
        if (next) {
          yield next;
          continue;
        }
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
      }
      // The source's failure, as the journal raised it (an UnavailableError, …): rethrown as it is.
      if (this.#error !== undefined) throw this.#error as Error;
    } finally {
      this.#done = true;
      void this.tail.leave(this);
    }
  }

  readonly #iterator = this.#iterate();

  [Symbol.asyncIterator](): AsyncIterator<JournalEvent> {
    return this.#iterator;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.end();
      await this.#iterator.return(undefined);
      await this.tail.leave(this);
    })();
    return this.#closing;
  }

  #notify(): void {
    this.#wake?.();
  }
}
