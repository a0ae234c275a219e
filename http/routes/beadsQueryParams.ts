import type { FastifyReply } from 'fastify';
import { BadRequestError } from '../../actors/errors.ts';
import type { BeadStore } from '../../actors/beads/index.ts';
import { decodeCursor } from '../../machines/beads/paging.ts';

/** Default and longest wait of a blocking query (upstream: 30s, 2m). */
export const DEFAULT_WAIT_MS = 30_000;
export const MAX_WAIT_MS = 120_000;

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A Go duration string (`30s`, `1m30s`, `1.5h`, `250ms`) in milliseconds, or undefined when `text` is
 * not one. Negative durations are not accepted. This is a pure function.
 */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    at = re.lastIndex;
  }
  return at === 0 ? undefined : total;
}

/**
 * The keyset position of a `cursor` query value (absent or empty: the first page).
 * @throws BadRequestError (400) for a value that is not one of our cursors: a garbage cursor never
 *   silently restarts from the first page.
 */
export function cursorPosition(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const position = decodeCursor(cursor);
  if (position === undefined) {
    throw new BadRequestError('cursor is not a valid pagination token; re-fetch the first page', null);
  }
  return position;
}

/**
 * A blocking query: with `index` given, holds the request until the city's event index passes it, or
 * `wait` (default 30s, at most 2m) elapses, or the client goes away; then the route answers as usual.
 * @throws BadRequestError (400) for an `index` that is not a non-negative integer or a `wait` that is
 *   not a Go duration.
 */
export async function blockIfAsked(
  store: BeadStore,
  query: { index?: string; wait?: string },
  reply: FastifyReply,
): Promise<void> {
  if (query.index === undefined || query.index === '') return;
  if (!/^\d{1,15}$/.test(query.index)) {
    throw new BadRequestError(`index must be a non-negative integer: ${JSON.stringify(query.index)}`);
  }
  const index = Number(query.index);
  let waitMs = DEFAULT_WAIT_MS;
  if (query.wait !== undefined && query.wait !== '') {
    const parsed = parseGoDuration(query.wait);
    if (parsed === undefined)
      throw new BadRequestError(`invalid wait duration: ${JSON.stringify(query.wait)}`);
    waitMs = Math.min(parsed, MAX_WAIT_MS);
  }
  if (store.index > index || waitMs === 0) return;
  const gone = new AbortController();
  const onClose = () => gone.abort();
  reply.raw.once('close', onClose);
  try {
    await store.waitForIndex(index, waitMs, gone.signal);
  } finally {
    reply.raw.off('close', onClose);
  }
}
