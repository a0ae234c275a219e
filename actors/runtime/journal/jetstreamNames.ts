import { createHash } from 'node:crypto';
import { basename, dirname, resolve } from 'node:path';

/** Where one log lives in JetStream: its stream and the single subject that stream captures. */
export interface StreamAddress {
  stream: string;
  subject: string;
}

/** The default namespace of stream names (`GC_…`) and subjects (`gc.ev.…`). */
export const DEFAULT_PREFIX = 'gc';

const TOKEN = /^[A-Za-z0-9_-]+$/;

/**
 * Maps a log's file path to its stream and subject. The name depends on the path only, never on the
 * city's display name, so one city directory always maps to the same stream, whoever opens it:
 * `<PREFIX>_<label>_<8 hex of sha256(absolute file)>`, where the label is the directory that holds
 * `.gc/` (or the file's own directory), reduced to stream-name-safe characters; the subject is
 * `<prefix>.ev.<hash>` (the prefix is case-insensitive). This is a pure function.
 *
 * Throws when `prefix` is not a single token of letters, digits, `_` or `-`.
 */
export function streamAddress(file: string, prefix = DEFAULT_PREFIX): StreamAddress {
  if (!TOKEN.test(prefix)) throw new Error(`invalid jetstream journal prefix ${JSON.stringify(prefix)}`);
  const absolute = resolve(file);
  const hash = createHash('sha256').update(absolute).digest('hex').slice(0, 8);
  const dir = dirname(absolute);
  const home = basename(dir) === '.gc' ? dirname(dir) : dir;
  // Stream names may not hold `.`, `*`, `>`, path separators or whitespace; keep them short and readable.
  const label =
    basename(home)
      .replace(/[^A-Za-z0-9_-]+/g, '_')
      .slice(0, 32) || 'root';
  return {
    stream: `${prefix.toUpperCase()}_${label}_${hash}`,
    subject: `${prefix.toLowerCase()}.ev.${hash}`,
  };
}
