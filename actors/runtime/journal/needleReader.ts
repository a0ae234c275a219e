import type { FileHandle } from 'node:fs/promises';
import { CHUNK_BYTES, MAX_CHUNK_BYTES, type LineParser } from './lineReader.ts';

const NEWLINE = 0x0a;

/**
 * The lines in `[start, end)` that contain `needle`, oldest first, yielded per chunk as `parse` turns them.
 * Each chunk is searched for the needle as a whole (natively, at memory speed) and only the lines around
 * a hit are cut out and parsed: the lines between are never split, so a lookup of a family's or a rare
 * type's events costs about a read of the range. `start` must be a line start, `end` a line end, and the
 * needle must hold no newline. A chunk's cut-off last line is read again with the next one; a line longer
 * than a chunk grows the chunk. Stops after `limit` results. Chunks start at `chunkBytes` and double up to
 * 1 MiB.
 * Effects: positional reads on `handle`.
 * @throws whatever a read or `parse` throws.
 */
export async function* readForwardMatching<T>(
  handle: FileHandle,
  start: number,
  end: number,
  needle: Uint8Array,
  parse: LineParser<T>,
  limit = Infinity,
  chunkBytes = CHUNK_BYTES,
): AsyncGenerator<T[]> {
  let buffer = Buffer.allocUnsafe(chunkBytes);
  let pos = start;
  let count = 0;
  while (pos < end && count < limit) {
    const want = Math.min(buffer.length, end - pos);
    const { bytesRead } = await handle.read(buffer, 0, want, pos);
    // The file is shorter than the range: what is left is not a whole line.
    if (bytesRead < want) return;
    const data = buffer.subarray(0, bytesRead);
    // Whole lines only: up to the last newline (the range ends with one).
    const last = data.lastIndexOf(NEWLINE);
    if (last < 0) {
      // What is left of the range holds no newline: the file changed under the read.
      if (want < buffer.length) return;
      buffer = Buffer.allocUnsafe(buffer.length * 2);
      continue;
    }
    const out: T[] = [];
    for (let hit = data.indexOf(needle); hit >= 0 && hit < last && count < limit;) {
      const lineStart = data.lastIndexOf(NEWLINE, hit) + 1;
      const lineEnd = data.indexOf(NEWLINE, hit);
      const value = parse(data, lineStart, lineEnd, pos + lineStart);
      if (value !== undefined) {
        out.push(value);
        count++;
      }
      hit = data.indexOf(needle, lineEnd + 1);
    }
    pos += last + 1;
    if (out.length > 0) yield out;
    if (buffer.length < MAX_CHUNK_BYTES) buffer = Buffer.allocUnsafe(buffer.length * 2);
  }
}

/**
 * {@link readForwardMatching}, newest first: chunks are read from `end` back to `start`, and each is
 * searched from its end. A chunk's cut-off first line is read again with the chunk before it.
 * Same arguments, effects and errors.
 */
export async function* readBackwardMatching<T>(
  handle: FileHandle,
  start: number,
  end: number,
  needle: Uint8Array,
  parse: LineParser<T>,
  limit = Infinity,
  chunkBytes = CHUNK_BYTES,
): AsyncGenerator<T[]> {
  let buffer = Buffer.allocUnsafe(chunkBytes);
  let pos = end;
  let count = 0;
  while (pos > start && count < limit) {
    const size = Math.min(buffer.length, pos - start);
    const chunkStart = pos - size;
    const { bytesRead } = await handle.read(buffer, 0, size, chunkStart);
    if (bytesRead < size) return;
    const data = buffer.subarray(0, size);
    // Whole lines only: from the first line start in the chunk (the range starts at one).
    let first = 0;
    if (chunkStart > start) {
      // The chunk ends with a newline (`pos` is a line end); when that is its only one, the line is longer.
      const nl = data.indexOf(NEWLINE);
      // No newline at all: the file changed under the read.
      if (nl < 0) return;
      if (nl === size - 1) {
        buffer = Buffer.allocUnsafe(buffer.length * 2);
        continue;
      }
      first = nl + 1;
    }
    const out: T[] = [];
    for (let hit = data.lastIndexOf(needle, size - 1); hit >= first && count < limit;) {
      const lineStart = data.lastIndexOf(NEWLINE, hit) + 1;
      const lineEnd = data.indexOf(NEWLINE, hit);
      // No newline after it: the file changed under the read (`end` was a line end).
      if (lineEnd < 0) return;
      const value = parse(data, lineStart, lineEnd, chunkStart + lineStart);
      if (value !== undefined) {
        out.push(value);
        count++;
      }
      // The needle holds no newline, so a hit before this line lies wholly in an earlier one.
      hit = lineStart >= 2 ? data.lastIndexOf(needle, lineStart - 2) : -1;
    }
    pos = chunkStart + first;
    if (out.length > 0) yield out;
    if (buffer.length < MAX_CHUNK_BYTES) buffer = Buffer.allocUnsafe(buffer.length * 2);
  }
}
