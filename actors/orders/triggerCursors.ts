import type { Journal, JournalEvent } from '../runtime/journal/journal.ts';

/**
 * The newest seq of each event type, for event orders' triggers. Events are folded as they land; a type
 * an order starts to watch is also read once from the log, since the order service's start-up fold reads
 * only `order.*` events (the other families' history was never handed to it).
 */
export class TriggerCursors {
  readonly #newest = new Map<string, number>();
  /** Types read from the log, or being read. */
  readonly #read = new Set<string>();
  #reading: Promise<void> | undefined;

  constructor(
    private readonly journal: Journal,
    private readonly onError?: (err: unknown) => void,
  ) {}

  /** The newest seq of `type` known, 0 when none. */
  newest(type: string): number {
    return this.#newest.get(type) ?? 0;
  }

  /** Folds events that landed, in seq order. */
  fold(events: readonly JournalEvent[]): void {
    for (const e of events) this.#newest.set(e.type, e.seq);
  }

  /**
   * Starts reading from the log the newest seq of each of `types` not read yet. A failed read is reported
   * and tried again by the next call. Effects: reads the journal.
   */
  watch(types: Iterable<string>): void {
    for (const type of types) {
      if (this.#read.has(type)) continue;
      this.#read.add(type);
      const read = this.journal.list({ type, order: 'desc', limit: 1 }).then(
        ([newest]) => {
          // A fold may have seen a newer one while the read was under way.
          if (newest && newest.seq > this.newest(type)) this.#newest.set(type, newest.seq);
        },
        (err: unknown) => {
          this.#read.delete(type);
          this.onError?.(err);
        },
      );
      const all: Promise<void> = Promise.all([this.#reading, read]).then(() => {
        if (this.#reading === all) this.#reading = undefined;
      });
      this.#reading = all;
    }
  }

  /** Resolves once the reads under way have ended (undefined: none is). */
  settled(): Promise<void> | undefined {
    return this.#reading;
  }
}
