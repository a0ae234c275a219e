import { compareBytewise, type CompositeCursor, type CursorMap } from '../../../schemas/compositeCursor.ts';

/**
 * The positions of a supervisor stream, formatted as the composite cursor of every frame's `id:`. Names
 * are kept sorted as they are added, so formatting a frame costs one join, not a sort.
 */
export class CursorTracker {
  readonly #positions: Map<string, number>;
  #names: string[];

  constructor(initial: CursorMap = new Map()) {
    this.#positions = new Map(initial);
    this.#names = [...this.#positions.keys()].sort(compareBytewise);
  }

  get(name: string): number | undefined {
    return this.#positions.get(name);
  }

  has(name: string): boolean {
    return this.#positions.has(name);
  }

  /** Records that everything of `name` up to `seq` was delivered (a new name joins the cursor). */
  set(name: string, seq: number): void {
    if (!this.#positions.has(name)) {
      this.#names.push(name);
      this.#names.sort(compareBytewise);
    }
    this.#positions.set(name, seq);
  }

  /** The whole cursor, names sorted bytewise, zero and unknown names included. */
  format(): CompositeCursor {
    let out = '';
    for (const name of this.#names) out += `${out === '' ? '' : ','}${name}:${this.#positions.get(name)!}`;
    return out as CompositeCursor;
  }
}
