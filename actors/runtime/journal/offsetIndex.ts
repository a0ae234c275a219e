/**
 * Maps each seq of a JSONL log to the byte offset where its line starts, in 8 bytes per event (a growable
 * `Float64Array`, exact for offsets up to 2^53), so reads can seek without holding events in memory.
 *
 * A seq whose line is missing (a corrupt line skipped on open) points at the next valid line, so
 * `offsetOf(s)` is always "where the first line with seq ≥ s starts" and a byte range built from two
 * lookups never misses a valid line.
 */
export class OffsetIndex {
  #offsets = new Float64Array(1024);
  #head = 0;

  /** The highest seq indexed, 0 when empty. */
  get head(): number {
    return this.#head;
  }

  /**
   * Records that the line of `seq` starts at `offset`. Seqs must increase; any seqs skipped in between
   * are pointed at this line.
   * @throws RangeError when `seq` does not exceed the current head.
   */
  push(seq: number, offset: number): void {
    if (seq <= this.#head) throw new RangeError(`seq ${seq} is not after head ${this.#head}`);
    if (seq > this.#offsets.length) {
      let size = this.#offsets.length * 2;
      while (size < seq) size *= 2;
      const grown = new Float64Array(size);
      grown.set(this.#offsets.subarray(0, this.#head));
      this.#offsets = grown;
    }
    // One line per seq is the common case: a fill() call per push cost tens of ms on a 1M-line open.
    if (seq === this.#head + 1) this.#offsets[this.#head] = offset;
    else this.#offsets.fill(offset, this.#head, seq);
    this.#head = seq;
  }

  /** Where the first line with seq ≥ `seq` starts, or undefined past the head. Pure. */
  offsetOf(seq: number): number | undefined {
    if (seq > this.#head) return undefined;
    return this.#offsets[Math.max(seq, 1) - 1];
  }

  /** True when the valid line of `seq` starts exactly at `offset` (anything else there is not that event). */
  holds(seq: number, offset: number): boolean {
    return Number.isInteger(seq) && seq >= 1 && seq <= this.#head && this.#offsets[seq - 1] === offset;
  }
}
