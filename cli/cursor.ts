import { parseCompositeCursor } from '../schemas/compositeCursor.ts';
import { parseQueryInteger } from '../schemas/queryInteger.ts';

/**
 * Stream positions of `gc events`. Cursors and seqs are read with the server's own codec and integer grammar
 * (schemas/), so the CLI never resumes from a value the server would refuse.
 */

/**
 * Where a resumable stream has got to, so a reconnect resumes there and a frame delivered twice (a replay
 * overlapping what was already printed) is recognised and dropped. City streams are positioned by seq;
 * supervisor streams by the composite cursor in each frame's `id:`.
 */
export interface StreamPosition {
  /** The value to resume from (`after_seq` or `after_cursor`), or undefined for "the server's head". */
  readonly resume: string | undefined;
  /**
   * Records a frame's id and says whether the frame is new (after everything seen so far). A frame without
   * an id cannot be placed; it counts as new and leaves the position where it was.
   */
  advance(id: string | undefined): boolean;
}

/** Position on a city stream: frame ids are seqs; a frame is new when its seq is above the last one. */
export class SeqPosition implements StreamPosition {
  #last: number | undefined;
  constructor(after?: number) {
    this.#last = after;
  }
  get resume(): string | undefined {
    return this.#last === undefined ? undefined : String(this.#last);
  }
  advance(id: string | undefined): boolean {
    const seq = id === undefined ? undefined : parseQueryInteger(id);
    if (seq === undefined) return true;
    if (this.#last !== undefined && seq <= this.#last) return false;
    this.#last = seq;
    return true;
  }
}

/**
 * Position on the supervisor stream: each frame id is the whole composite cursor after that frame. A frame is
 * new when some stream's seq in it moved past what the previous cursor said (a stream the previous cursor did
 * not name counts as 0).
 */
export class CursorPosition implements StreamPosition {
  #text: string | undefined;
  #seqs: Map<string, number>;
  /** @throws CursorSyntaxError when `after` is not a composite cursor (the flag is checked before this). */
  constructor(after?: string) {
    this.#text = after;
    this.#seqs = after === undefined ? new Map<string, number>() : parseCompositeCursor(after);
  }
  get resume(): string | undefined {
    return this.#text;
  }
  advance(id: string | undefined): boolean {
    if (id === undefined) return true;
    let next: Map<string, number>;
    try {
      next = parseCompositeCursor(id);
    } catch {
      return true;
    }
    let moved = false;
    for (const [name, seq] of next) if (seq > (this.#seqs.get(name) ?? 0)) moved = true;
    if (!moved && this.#text !== undefined) return false;
    // Merge rather than replace: a cursor never moves a stream backwards.
    for (const [name, seq] of next) this.#seqs.set(name, Math.max(seq, this.#seqs.get(name) ?? 0));
    this.#text = id;
    return true;
  }
}
