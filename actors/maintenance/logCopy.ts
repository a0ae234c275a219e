import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Journal } from '../runtime/journal/journal.ts';

/** Events read per page while copying. */
const PAGE = 5000;

/**
 * Writes the events `first..last` of `journal` to `file` as JSON Lines (the file journal's own line format,
 * so a copy opens as a log), gzipped when `gzip`. Reads through the journal interface, so it copies a
 * JetStream log as well as a file. The file appears whole or not at all (written as `<file>.partial`, then
 * renamed). Effects: reads the log, writes the file. Resolves with the number of events written.
 * @throws what the journal throws; the filesystem's errors (nothing is left at `file` then).
 */
export async function copyLog(
  journal: Journal,
  first: number,
  last: number,
  file: string,
  options: { gzip?: boolean } = {},
): Promise<number> {
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  let count = 0;
  async function* lines(): AsyncGenerator<string> {
    for (let after = first - 1; after < last;) {
      const page = await journal.list({ afterSeq: after, limit: Math.min(PAGE, last - after) });
      if (page.length === 0) break;
      for (const event of page) {
        if (event.seq > last) return;
        count += 1;
        yield JSON.stringify(event) + '\n';
      }
      after = page[page.length - 1]!.seq;
    }
  }
  try {
    const out = createWriteStream(partial);
    await (options.gzip
      ? pipeline(Readable.from(lines()), createGzip(), out)
      : pipeline(Readable.from(lines()), out));
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return count;
}
