import type { JournalEvent } from './journal.ts';

/**
 * The lines of the last few events appended in this process, by seq. Subscribers that have caught up take
 * new events from here instead of reading back the lines just written: that thread-pool round trip per
 * batch dominated append→subscriber tail latency under load. Each read parses its own copy, exactly as a
 * read from disk would, so no subscriber can see another's changes. Older positions come from disk.
 */
export class RecentEvents {
  readonly #lines: Array<string | undefined>;
  readonly #seqs: Float64Array;
  #last = 0;

  constructor(readonly capacity = 4096) {
    this.#lines = new Array<string | undefined>(capacity);
    this.#seqs = new Float64Array(capacity);
  }

  /** Records the line of event `seq`; seqs arrive in increasing order (a gap restarts the window). */
  push(seq: number, line: string): void {
    if (seq !== this.#last + 1) this.#seqs.fill(0);
    const slot = seq % this.capacity;
    this.#lines[slot] = line;
    this.#seqs[slot] = seq;
    this.#last = seq;
  }

  /** Events `from..upTo` when every one is held, else undefined (the caller reads the file). */
  range(from: number, upTo: number): JournalEvent[] | undefined {
    if (from > upTo || upTo > this.#last || this.#last - from >= this.capacity) return undefined;
    const out: JournalEvent[] = [];
    for (let seq = from; seq <= upTo; seq++) {
      const slot = seq % this.capacity;
      if (this.#seqs[slot] !== seq) return undefined;
      out.push(JSON.parse(this.#lines[slot]!) as JournalEvent);
    }
    return out;
  }
}
