import type { FileHandle } from 'node:fs/promises';
import { scanLines } from './lineReader.ts';
import { INCONCLUSIVE, lineSeq } from './logLineSeq.ts';
import { OffsetIndex } from './offsetIndex.ts';

/** What one open-time scan of a log learned: its offset index and the byte length it keeps. */
export interface RecoveredLog {
  index: OffsetIndex;
  /** Bytes of whole, acknowledged lines: the offset the next append lands at. */
  size: number;
}

/** Corrupt lines reported one by one; beyond this only a count, so a mangled file cannot flood stderr. */
const MAX_REPORTED = 10;

/**
 * The seq of a stored line, or undefined when the line is not a valid event in this position. A valid
 * seq exceeds every seq before it and is at most the line's number: each seq we assign takes one line,
 * so a larger one was not written by a journal (and would make the index reserve a hole that is not there).
 * This is a pure function.
 */
export function storedSeq(text: string, head: number, lineNo: number): number | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const seq = (value as { seq?: unknown }).seq;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq)) return undefined;
  return seq > head && seq <= lineNo ? seq : undefined;
}

/**
 * {@link storedSeq} of the line `buf[start, end)` (`buf[end]` is its newline): read from the bytes when
 * they settle it, parsed otherwise, so both ways agree on every line. Pure.
 */
export function storedSeqOfBytes(
  buf: Buffer,
  start: number,
  end: number,
  head: number,
  lineNo: number,
): number | undefined {
  const seq = lineSeq(buf, start, end);
  if (seq === INCONCLUSIVE) return storedSeq(buf.toString('utf8', start, end), head, lineNo);
  return seq > head && seq <= lineNo ? seq : undefined;
}

/**
 * Scans a log once, front to back, to build its offset index and to repair a crash: a torn last line
 * (no trailing newline, or an invalid last line) is truncated away with one warning. Corrupt lines
 * elsewhere are kept in the file, left out of the index (so reads skip them) and reported with their line
 * number and byte offset; seqs are never renumbered.
 * Effects: reads `handle`, may truncate its file, calls `warn`.
 * @throws whatever reading or truncating the file throws.
 */
export async function recoverLog(
  handle: FileHandle,
  file: string,
  warn: (message: string) => void,
): Promise<RecoveredLog> {
  const index = new OffsetIndex();
  const { size } = await handle.stat();
  let lineNo = 0;
  let corrupt = 0;
  // An invalid line is only "in the middle" once another line follows it.
  let suspect: { offset: number; lineNo: number } | undefined;
  const lastEnd = await scanLines(handle, size, (buf, start, end, offset) => {
    lineNo++;
    if (suspect) {
      if (++corrupt <= MAX_REPORTED) {
        warn(`journal ${file}: skipping corrupt line ${suspect.lineNo} at byte offset ${suspect.offset}`);
      }
      suspect = undefined;
    }
    const seq = storedSeqOfBytes(buf, start, end, index.head, lineNo);
    if (seq === undefined) suspect = { offset, lineNo };
    else index.push(seq, offset);
  });
  if (corrupt > MAX_REPORTED) {
    warn(`journal ${file}: skipped ${corrupt - MAX_REPORTED} more corrupt lines`);
  }
  const keep = suspect ? suspect.offset : lastEnd;
  if (keep < size) {
    warn(
      `journal ${file}: truncating a torn last line at byte offset ${keep} ` +
        `(${size - keep} bytes, left by an interrupted write)`,
    );
    await handle.truncate(keep);
  }
  return { index, size: keep };
}
