import type { FastifyReply } from 'fastify';
import { BadRequestError } from '../../actors/errors.ts';
import type { BeadStore } from '../../actors/beads/index.ts';
import { decodeCursor } from '../../machines/beads/paging.ts';
import { parseGoDuration } from '../goDuration.ts';

/** Default and longest wait of a blocking query (upstream: 30s, 2m). */
export const DEFAULT_WAIT_MS = 30_000;
export const MAX_WAIT_MS = 120_000;

/**
 * A `wait` value as a Go duration (`30s`, `1m30s`, `1.5h`, `250ms`) in milliseconds, or undefined when
 * `text` is not one; a signed value is not a wait. This is a pure function.
 */
export function parseWaitDuration(text: string): number | undefined {
  if (text.startsWith('-') || text.startsWith('+')) return undefined;
  try {
    return parseGoDuration(text);
  } catch {
    return undefined;
  }
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
    const parsed = parseWaitDuration(query.wait);
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
