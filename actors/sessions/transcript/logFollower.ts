/**
 * Follows a conversation log as it grows: woken by a file watch (inotify through `fs.watch`), or by polling
 * at `pollMs` where a watch cannot be set (the folder does not exist yet, or the file system has no
 * notifications). Each wake reads only the bytes appended since the last read, in whole lines; a log that
 * shrank or was replaced (another inode) is reported as a reset. Effects: one watch or one timer, released
 * by `close()`.
 */
import { watch, type FSWatcher } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

export interface FollowerOptions {
  /** Polling interval where no watch can be set. */
  pollMs: number;
  /** Tests: never watch, always poll. */
  forcePolling?: boolean;
}

export type Growth = { kind: 'lines'; lines: string[] } | { kind: 'reset' };

export class LogFollower {
  #offset: number;
  #ino: number | undefined;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /** How the follower is woken now (tests and figures). */
  mode: 'watch' | 'poll' = 'poll';

  constructor(
    readonly path: string,
    offset: number,
    private readonly onWake: () => void,
    private readonly options: FollowerOptions,
  ) {
    this.#offset = offset;
  }

  get offset(): number {
    return this.#offset;
  }

  /** Starts watching (or polling); call once. */
  async start(): Promise<void> {
    try {
      this.#ino = (await stat(this.path)).ino;
    } catch {
      this.#ino = undefined;
    }
    this.#arm();
  }

  #arm(): void {
    if (this.#closed) return;
    this.#watcher?.close();
    this.#watcher = undefined;
    if (!this.options.forcePolling) {
      try {
        // The folder, not the file: a log created, replaced or renamed later is seen too.
        const name = basename(this.path);
        this.#watcher = watch(dirname(this.path), { persistent: false }, (_kind, file) => {
          if (file === null || file === name) this.onWake();
        });
        this.#watcher.on('error', () => this.#poll());
        this.mode = 'watch';
        return;
      } catch {
        // no such folder yet, or no notifications here: poll
      }
    }
    this.#poll();
  }

  #poll(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    this.mode = 'poll';
    if (this.#timer || this.#closed) return;
    this.#timer = setInterval(() => {
      this.onWake();
      // A folder that appeared since can be watched now.
      if (!this.options.forcePolling) {
        clearInterval(this.#timer);
        this.#timer = undefined;
        this.#arm();
      }
    }, this.options.pollMs);
  }

  /** The whole lines appended since the last read, or a reset when the log shrank or was replaced. */
  async read(): Promise<Growth> {
    let fh;
    try {
      fh = await open(this.path, 'r');
    } catch {
      return { kind: 'lines', lines: [] };
    }
    try {
      const st = await fh.stat();
      if ((this.#ino !== undefined && st.ino !== this.#ino) || st.size < this.#offset) {
        this.#ino = st.ino;
        this.#offset = 0;
        return { kind: 'reset' };
      }
      this.#ino = st.ino;
      if (st.size === this.#offset) return { kind: 'lines', lines: [] };
      const buf = Buffer.alloc(st.size - this.#offset);
      const { bytesRead } = await fh.read(buf, 0, buf.length, this.#offset);
      const end = buf.subarray(0, bytesRead).lastIndexOf(10);
      if (end < 0) return { kind: 'lines', lines: [] };
      this.#offset += end + 1;
      return {
        kind: 'lines',
        lines: buf
          .subarray(0, end)
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== ''),
      };
    } finally {
      await fh.close();
    }
  }

  /** Sets where the next read starts (after a reset re-read the log). */
  seek(offset: number): void {
    this.#offset = offset;
  }

  close(): void {
    this.#closed = true;
    this.#watcher?.close();
    clearInterval(this.#timer);
  }
}
