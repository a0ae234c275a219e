import { SeqConflictError } from '../errors.ts';
import { applyFilter } from './filter.ts';
import type {
  AppendOptions,
  JournalDraft,
  Journal,
  JournalBackend,
  JournalEvent,
  ListFilter,
  LogLocation,
  Subscription,
} from './journal.ts';
import { Notifier } from './notifier.ts';

/**
 * A journal held in memory: the reference behaviour the other backends are checked against, and a fast
 * store for unit tests. Nothing survives the process.
 */
export class MemoryJournal implements Journal {
  readonly #notifier = new Notifier();
  readonly #msgIds = new Map<string, JournalEvent[]>();

  /** `events` may be shared with a later MemoryJournal over the same store (a simulated restart). */
  readonly #events: JournalEvent[];

  constructor(
    readonly name: string,
    events: JournalEvent[] = [],
  ) {
    this.#events = events;
  }

  async append(draft: JournalDraft, options: AppendOptions = {}): Promise<JournalEvent> {
    return (await this.appendBatch([draft], options))[0]!;
  }

  /** All drafts or none, consecutively; see `Journal.appendBatch`. */
  async appendBatch(drafts: readonly JournalDraft[], options: AppendOptions = {}): Promise<JournalEvent[]> {
    if (this.#notifier.closed) throw new Error(`journal ${this.name} is closed`);
    if (options.msgId !== undefined) {
      const seen = this.#msgIds.get(options.msgId);
      if (seen) return seen;
    }
    const head = this.#events.length;
    if (options.expectedSeq !== undefined && options.expectedSeq !== head) {
      throw new SeqConflictError(this.name, options.expectedSeq, head);
    }
    const ts = new Date().toISOString();
    const events = drafts.map((draft, i) => ({ ...draft, seq: head + 1 + i, ts: draft.ts ?? ts }));
    this.#events.push(...events);
    if (options.msgId !== undefined) this.#msgIds.set(options.msgId, events);
    this.#notifier.notify();
    return events;
  }

  async list(filter?: ListFilter): Promise<JournalEvent[]> {
    return applyFilter(this.#events, filter);
  }

  async head(): Promise<number> {
    return this.#events.length;
  }

  subscribe(afterSeq: number): Subscription {
    const events = this.#events;
    const notifier = this.#notifier;
    let closed = false;
    async function* iterate(): AsyncGenerator<JournalEvent> {
      let next = afterSeq;
      while (!closed) {
        while (next < events.length && !closed) yield events[next++]!;
        if (closed || notifier.closed) return;
        // Only the log's notifier is awaited: close() wakes it, so no per-wake waiter accumulates.
        await notifier.wait();
      }
    }
    const it = iterate();
    return {
      [Symbol.asyncIterator]: () => it,
      close: async () => {
        closed = true;
        notifier.notify();
        await it.return(undefined);
      },
    };
  }

  async close(): Promise<void> {
    this.#notifier.close();
  }
}

/** Opens memory journals; pass the same `store` to a new backend to simulate a restart. */
export class MemoryJournalBackend implements JournalBackend {
  readonly kind = 'memory';
  readonly #logs = new Map<string, MemoryJournal>();

  constructor(readonly store = new Map<string, JournalEvent[]>()) {}

  async open(location: LogLocation): Promise<Journal> {
    let log = this.#logs.get(location.file);
    if (!log) {
      let events = this.store.get(location.file);
      if (!events) this.store.set(location.file, (events = []));
      log = new MemoryJournal(location.name, events);
      this.#logs.set(location.file, log);
    }
    return log;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#logs.values()].map((l) => l.close()));
  }
}
