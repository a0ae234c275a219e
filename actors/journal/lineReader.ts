import type { FileHandle } from 'node:fs/promises';

/** One newline-terminated line of a log: where it starts and ends (past its newline), and its text. */
export interface Line {
  offset: number;
  end: number;
  text: string;
}

/** Reads are done in chunks of this size, so memory stays bounded whatever the log's size. */
export const CHUNK_BYTES = 64 * 1024;

const NEWLINE = 0x0a;

/**
 * Reads the lines in `[start, end)` oldest first, one chunk at a time, yielding each chunk's complete
 * lines. `start` must be a line start and `end` a line end. Stops early if the file is shorter than `end`.
 * Effects: positional reads on `handle` (its file position is not used).
 * @throws whatever the read throws (EIO, EBADF…).
 */
export async function* readForward(
  handle: FileHandle,
  start: number,
  end: number,
  chunkBytes = CHUNK_BYTES,
): AsyncGenerator<Line[]> {
  const buffer = Buffer.allocUnsafe(chunkBytes);
  // Copies of the bytes read so far of a line longer than a chunk, joined once its newline comes, so a
  // long line costs one copy rather than one per chunk.
  let pending: Buffer[] = [];
  let lineStart = start;
  let pos = start;
  while (pos < end) {
    const chunkStart = pos;
    const { bytesRead } = await handle.read(buffer, 0, Math.min(chunkBytes, end - pos), pos);
    if (bytesRead === 0) return;
    pos += bytesRead;
    const data = buffer.subarray(0, bytesRead);
    const lines: Line[] = [];
    let from = 0;
    for (let nl = data.indexOf(NEWLINE); nl !== -1; nl = data.indexOf(NEWLINE, from)) {
      const text = join(pending, data.subarray(from, nl), []);
      pending = [];
      lines.push({ offset: lineStart, end: chunkStart + nl + 1, text });
      from = nl + 1;
      lineStart = chunkStart + from;
    }
    // Copy: `buffer` is reused by the next read.
    if (from < data.length) pending.push(Buffer.from(data.subarray(from)));
    if (lines.length > 0) yield lines;
  }
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
