/**
 * Reads a JSONL log from its end towards its start, one chunk at a time, so the newest page of a 50 MB
 * conversation costs a chunk or two, never the whole file. Lines are split on newline bytes before they are
 * decoded (a multi-byte character never straddles two reads), and a torn last line (a write in progress)
 * is left out: `end` is the offset just past the last complete line, where a forward reader continues.
 */
import { open, type FileHandle } from 'node:fs/promises';

/** Bytes read per step back. */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;

export class BackwardLog<E> {
  /** Entries of the complete lines in [start, end), in file order. */
  entries: E[] = [];
  #start: number;
  #fragment: Buffer = Buffer.alloc(0);

  private constructor(
    private readonly fh: FileHandle,
    /** Offset just past the last complete line. */
    readonly end: number,
    /** Size of the file when it was opened. */
    readonly size: number,
    private readonly parse: (line: string) => E | undefined,
    private readonly chunkBytes: number,
  ) {
    this.#start = size;
  }

  /**
   * Opens `path` and reads its last chunk.
   * @throws the fs error (ENOENT when the log does not exist).
   */
  static async open<E>(
    path: string,
    parse: (line: string) => E | undefined,
    chunkBytes = DEFAULT_CHUNK_BYTES,
  ): Promise<BackwardLog<E>> {
    const fh = await open(path, 'r');
    try {
      const { size } = await fh.stat();
      const end = await lastLineEnd(fh, size, chunkBytes);
      const log = new BackwardLog(fh, end, size, parse, chunkBytes);
      log.#start = end;
      await log.extend();
      return log;
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  /** True once every line from the start of the file is loaded. */
  get complete(): boolean {
    return this.#start === 0 && this.#fragment.length === 0;
  }

  /** Offset of the first loaded byte. */
  get start(): number {
    return this.#start;
  }

  /** Loads one more chunk before what is loaded; false when the file start was already reached. */
  async extend(): Promise<boolean> {
    if (this.complete) return false;
    const from = Math.max(0, this.#start - this.chunkBytes);
    const chunk = Buffer.alloc(this.#start - from);
    if (chunk.length > 0) await this.fh.read(chunk, 0, chunk.length, from);
    let buf = this.#fragment.length > 0 ? Buffer.concat([chunk, this.#fragment]) : chunk;
    this.#start = from;
    if (from > 0) {
      // The bytes before the first newline belong to a line that starts in an earlier chunk.
      const nl = buf.indexOf(10);
      if (nl < 0) {
        this.#fragment = buf;
        return true;
      }
      this.#fragment = Buffer.from(buf.subarray(0, nl));
      buf = buf.subarray(nl + 1);
    } else this.#fragment = Buffer.alloc(0);
    const fresh: E[] = [];
    for (const line of buf.toString('utf8').split('\n')) {
      if (line === '') continue;
      const e = this.parse(line);
      if (e !== undefined) fresh.push(e);
    }
    this.entries = fresh.concat(this.entries);
    return true;
  }

  /** Loads everything (for small logs, whose exact totals are cheap). */
  async loadAll(): Promise<void> {
    while (await this.extend());
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}

/** Offset just past the last newline of the file (0 when it has none). */
async function lastLineEnd(fh: FileHandle, size: number, chunkBytes: number): Promise<number> {
  let pos = size;
  while (pos > 0) {
    const from = Math.max(0, pos - Math.min(chunkBytes, 64 * 1024));
    const buf = Buffer.alloc(pos - from);
    await fh.read(buf, 0, buf.length, from);
    const nl = buf.lastIndexOf(10);
    if (nl >= 0) return from + nl + 1;
    pos = from;
  }
  return 0;
}
