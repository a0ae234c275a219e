import { writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** Appends `data` at the end of the log and resolves with the bytes written (possibly fewer). */
export type WriteFn = (handle: FileHandle, data: Uint8Array) => Promise<number>;

/** How the write path of a log behaves; see `FileJournalOptions`. */
export interface LogWriterOptions {
  fsync?: 'never' | 'batch';
  writer?: WriteFn;
}

/**
 * Without fsync a write only copies into the page cache (microseconds), so it is made synchronously: a
 * round trip through libuv's thread pool per batch cost more than the copy and left the loop idle
 * between a command's write and the next command's decision.
 */
const writeNow: WriteFn = (handle, data) => Promise.resolve(writeSync(handle.fd, data));
const writeOnce: WriteFn = async (handle, data) => (await handle.write(data)).bytesWritten;

/**
 * The write path of a JSONL log opened with O_APPEND: writes whole batches of lines and keeps the file
 * ending on an acknowledged line. It never reads the file.
 */
export class LogWriter {
  readonly #handle: FileHandle;
  readonly #options: LogWriterOptions;
  #size: number;
  /** A failed write may have left bytes past `#size` that could not be cut yet. */
  #dirty = false;

  constructor(handle: FileHandle, size: number, options: LogWriterOptions = {}) {
    this.#handle = handle;
    this.#size = size;
    this.#options = options;
  }

  /** Bytes of acknowledged lines; while a batch is being written the file may briefly be longer. */
  get size(): number {
    return this.#size;
  }

  /**
   * Appends `data` (whole lines) and, with `fsync: 'batch'`, flushes it to disk, then counts it in `size`.
   * Effects: write() calls on the handle until every byte is written; on failure, truncates the file
   * back to `size` (or, when that fails too, does so before the next write).
   * @throws the underlying error (ENOSPC, EROFS, EIO…) when any step fails; nothing of `data` then remains.
   */
  async write(data: Uint8Array): Promise<void> {
    const write = this.#options.writer ?? (this.#options.fsync === 'batch' ? writeOnce : writeNow);
    try {
      if (this.#dirty) await this.#handle.truncate(this.#size);
      this.#dirty = true;
      for (let done = 0; done < data.length;) {
        const n = await write(this.#handle, data.subarray(done));
        if (n <= 0) throw new Error('write made no progress');
        done += n;
      }
      if (this.#options.fsync === 'batch') await this.#handle.datasync();
      this.#dirty = false;
      this.#size += data.length;
    } catch (err) {
      await this.#handle.truncate(this.#size).then(
        () => (this.#dirty = false),
        () => undefined,
      );
      throw err;
    }
  }
}
