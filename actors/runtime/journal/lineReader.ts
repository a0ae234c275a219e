import type { FileHandle } from 'node:fs/promises';

/** One newline-terminated line of a log: where it starts and ends (past its newline), and its text. */
export interface Line {
  offset: number;
  end: number;
  text: string;
}

/** Reads are done in chunks of this size, so memory stays bounded whatever the log's size. */
export const CHUNK_BYTES = 64 * 1024;
/**
 * What a long forward read grows its chunks to: each read is a round trip to the thread pool, and at
 * 64 KiB those cost a replay of a large log more than its I/O did.
 */
export const MAX_CHUNK_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Reads the lines in `[start, end)` oldest first, one chunk at a time, yielding each chunk's complete
 * lines. `start` must be a line start and `end` a line end. Stops early if the file is shorter than `end`.
 * Chunks start at `chunkBytes` and double after each read up to `maxChunkBytes`, so a read that stops
 * after a few lines decodes little and a long scan makes few reads. `readAhead`: see {@link readForwardAs}.
 * Effects: positional reads on `handle` (its file position is not used).
 * @throws whatever the read throws (EIO, EBADF…).
 */
export function readForward(
  handle: FileHandle,
  start: number,
  end: number,
  chunkBytes = CHUNK_BYTES,
  maxChunkBytes = chunkBytes,
  readAhead = false,
): AsyncGenerator<Line[]> {
  const line: LineParser<Line> = (buf, from, to, offset) => ({
    offset,
    end: offset + (to - from) + 1,
    text: buf.toString('utf8', from, to),
  });
  return readForwardAs(handle, start, end, line, chunkBytes, maxChunkBytes, Infinity, readAhead);
}

/**
 * Turns one line's bytes `buf[start, end)` (without its newline), found at file offset `offset`, into what
 * {@link readForwardAs} yields, or undefined to leave it out. `buf` is reused once the call returns.
 */
export type LineParser<T> = (buf: Buffer, start: number, end: number, offset: number) => T | undefined;

/**
 * {@link readForward}, with each line handed to `parse` straight from the chunk it was read into, and what
 * it answers yielded per chunk. No string per line outlives its parse: a replay of millions of lines that
 * held each chunk's texts until they were all parsed spent a third of its time copying them in the
 * garbage collector. Reading stops after `limit` results. With `readAhead`, once chunks are at their
 * largest the next one is read while this one is parsed, into a second buffer (a start-up replay of a large
 * log otherwise sat idle for a fifth of its time, waiting on each read); the many readers of a stream's
 * catch-up do without, so as not to double their memory. Same effects and errors, plus what `parse` throws.
 */
export async function* readForwardAs<T>(
  handle: FileHandle,
  start: number,
  end: number,
  parse: LineParser<T>,
  chunkBytes = CHUNK_BYTES,
  maxChunkBytes = chunkBytes,
  limit = Infinity,
  readAhead = false,
): AsyncGenerator<T[]> {
  let buffer: Buffer = Buffer.allocUnsafe(chunkBytes);
  let spare: Buffer | undefined;
  let ahead: Promise<{ bytesRead: number }> | undefined;
  // Copies of the bytes read so far of a line longer than a chunk, joined once its newline comes, so a
  // long line costs one copy rather than one per chunk.
  let pending: Buffer[] = [];
  let lineStart = start;
  let pos = start;
  let count = 0;
  try {
    while (pos < end && count < limit) {
      const chunkStart = pos;
      let bytesRead: number;
      if (ahead) {
        ({ bytesRead } = await ahead);
        ahead = undefined;
        [buffer, spare] = [spare!, buffer];
      } else {
        ({ bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, end - pos), pos));
      }
      if (bytesRead === 0) return;
      pos += bytesRead;
      if (readAhead && buffer.length === maxChunkBytes && pos < end) {
        spare ??= Buffer.allocUnsafe(maxChunkBytes);
        ahead = handle.read(spare, 0, Math.min(spare.length, end - pos), pos);
        // Awaited next turn or in `finally`; this only keeps a failure meanwhile from counting as unhandled.
        ahead.catch(() => undefined);
      }
      const data = buffer.subarray(0, bytesRead);
      const out: T[] = [];
      let from = 0;
      let nl = data.indexOf(NEWLINE);
      if (pending.length > 0 && nl !== -1) {
        pending.push(data.subarray(0, nl));
        const joined = Buffer.concat(pending);
        pending = [];
        const value = parse(joined, 0, joined.length, lineStart);
        if (value !== undefined) {
          out.push(value);
          count++;
        }
        from = nl + 1;
        lineStart = chunkStart + from;
        nl = data.indexOf(NEWLINE, from);
      }
      for (; nl !== -1 && count < limit; nl = data.indexOf(NEWLINE, from)) {
        const value = parse(data, from, nl, lineStart);
        if (value !== undefined) {
          out.push(value);
          count++;
        }
        from = nl + 1;
        lineStart = chunkStart + from;
      }
      // Copy: `buffer` is reused by a later read.
      if (from < data.length && count < limit) pending.push(Buffer.from(data.subarray(from)));
      if (out.length > 0) yield out;
      if (buffer.length < maxChunkBytes && pos < end) {
        buffer = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxChunkBytes));
      }
    }
  } finally {
    // No read is left running into a buffer (or on a handle) once the reader is done with.
    await ahead?.then(
      () => undefined,
      () => undefined,
    );
  }
}

/** Receives one line of {@link scanLines}: its bytes are `buf[start, end)`, and `buf[end]` is its newline. */
export type LineVisitor = (buf: Buffer, start: number, end: number, offset: number) => void;

/**
 * Visits every newline-terminated line in `[0, size)` oldest first, as bytes (no string is built), and
 * resolves with the offset past the last newline: anything after it is an unterminated line. The next
 * chunk is read while this one is visited, so the disk and the visitor work at once.
 * Effects: positional reads on `handle`; none is left running when it settles.
 * @throws whatever a read or `visit` throws.
 */
export async function scanLines(
  handle: FileHandle,
  size: number,
  visit: LineVisitor,
  chunkBytes = MAX_CHUNK_BYTES,
): Promise<number> {
  const buffers = [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)];
  // Copies of the bytes read so far of a line cut by a chunk's end (its buffer is about to be reused).
  let pending: Buffer[] = [];
  let lineStart = 0;
  let pos = 0;
  let turn = 0;
  const readNext = () => {
    const read = handle.read(buffers[turn++ % 2]!, 0, Math.min(chunkBytes, size - pos), pos);
    // Awaited below or in `finally`; this only keeps a failure while it waits from counting as unhandled.
    read.catch(() => undefined);
    return read;
  };
  let next = pos < size ? readNext() : undefined;
  try {
    while (next) {
      const { bytesRead, buffer } = await next;
      next = undefined;
      if (bytesRead === 0) break;
      const chunkStart = pos;
      pos += bytesRead;
      if (pos < size) next = readNext();
      const data = buffer.subarray(0, bytesRead);
      let from = 0;
      let nl = data.indexOf(NEWLINE);
      if (pending.length > 0 && nl !== -1) {
        pending.push(data.subarray(0, nl + 1));
        const line = Buffer.concat(pending);
        pending = [];
        visit(line, 0, line.length - 1, lineStart);
        from = nl + 1;
        lineStart = chunkStart + from;
        nl = data.indexOf(NEWLINE, from);
      }
      for (; nl !== -1; nl = data.indexOf(NEWLINE, from)) {
        visit(data, from, nl, chunkStart + from);
        from = nl + 1;
        lineStart = chunkStart + from;
      }
      if (from < bytesRead) pending.push(Buffer.from(data.subarray(from)));
    }
  } finally {
    await next?.then(
      () => undefined,
      () => undefined,
    );
  }
  return lineStart;
}

/**
 * Reads the lines in `[start, end)` newest first, one chunk at a time from the end, yielding each chunk's
 * complete lines newest first. `start` must be a line start and `end` a line end, so a tail read costs
 * only the bytes of the lines it returns (plus one chunk).
 * Effects: positional reads on `handle`.
 * @throws whatever the read throws.
 */
export async function* readBackward(
  handle: FileHandle,
  start: number,
  end: number,
  chunkBytes = CHUNK_BYTES,
): AsyncGenerator<Line[]> {
  const buffer = Buffer.allocUnsafe(chunkBytes);
  // Copies of the bytes, in file order, of a line whose start is still further back.
  let pending: Buffer[] = [];
  let lineEnd = end;
  let pos = end;
  while (pos > start) {
    const size = Math.min(chunkBytes, pos - start);
    // The last chunk ends with the newline of the log's last line, which is not part of its text.
    let to = pos === end ? size - 1 : size;
    pos -= size;
    const { bytesRead } = await handle.read(buffer, 0, size, pos);
    if (bytesRead < size) return;
    const data = buffer.subarray(0, size);
    const lines: Line[] = [];
    for (let nl = to > 0 ? data.lastIndexOf(NEWLINE, to - 1) : -1; nl !== -1;) {
      lines.push({ offset: pos + nl + 1, end: lineEnd, text: join([], data.subarray(nl + 1, to), pending) });
      pending = [];
      lineEnd = pos + nl + 1;
      to = nl;
      nl = to > 0 ? data.lastIndexOf(NEWLINE, to - 1) : -1;
    }
    if (pos === start) {
      lines.push({ offset: start, end: lineEnd, text: join([], data.subarray(0, to), pending) });
    } else if (to > 0) {
      pending.unshift(Buffer.from(data.subarray(0, to)));
    }
    if (lines.length > 0) yield lines;
  }
}

/** The UTF-8 text of `before + middle + after`, copying only when a line spans chunks. Pure. */
function join(before: Buffer[], middle: Buffer, after: Buffer[]): string {
  if (before.length === 0 && after.length === 0) return middle.toString('utf8');
  return Buffer.concat([...before, middle, ...after]).toString('utf8');
}
