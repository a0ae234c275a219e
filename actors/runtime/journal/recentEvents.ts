import type { JournalEvent } from './journal.ts';

/**
 * The lines of the last few events appended in this process, by seq. Subscribers that have caught up take
 * new events from here instead of reading back the lines just written: that thread-pool round trip per
 * batch dominated append→subscriber tail latency under load. Each read parses its own copy, exactly as a
 * read from disk would, so no subscriber can see another's changes; read-only subscribers (SSE streams)
 * share one decoded copy instead, so a thousand streams of one log parse each line once, not a thousand
 * times. Older positions come from disk.
 */
export class RecentEvents {
  readonly #lines: Array<string | undefined>;
  /** The shared decoded copy of a slot's line, made on the first read-only read. */
  readonly #decoded: Array<JournalEvent | undefined>;
  readonly #seqs: Float64Array;
  #last = 0;

  constructor(readonly capacity = 4096) {
    this.#lines = new Array<string | undefined>(capacity);
    this.#decoded = new Array<JournalEvent | undefined>(capacity);
    this.#seqs = new Float64Array(capacity);
  }

  /** Records the line of event `seq`; seqs arrive in increasing order (a gap restarts the window). */
  push(seq: number, line: string): void {
    if (seq !== this.#last + 1) this.#seqs.fill(0);
    const slot = seq % this.capacity;
    this.#lines[slot] = line;
    this.#decoded[slot] = undefined;
    this.#seqs[slot] = seq;
    this.#last = seq;
  }

  /**
   * Events `from..upTo` when every one is held, else undefined (the caller reads the file). `shared`: the
   * caller never changes them, so it gets the copies every such caller gets.
   */
  range(from: number, upTo: number, shared = false): JournalEvent[] | undefined {
    if (from > upTo || upTo > this.#last || this.#last - from >= this.capacity) return undefined;
    const out: JournalEvent[] = [];
    for (let seq = from; seq <= upTo; seq++) {
      const slot = seq % this.capacity;
      if (this.#seqs[slot] !== seq) return undefined;
      if (!shared) out.push(JSON.parse(this.#lines[slot]!) as JournalEvent);
      else out.push((this.#decoded[slot] ??= JSON.parse(this.#lines[slot]!) as JournalEvent));
    }
    return out;
  }
}
