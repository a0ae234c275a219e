import { BadRequestError } from '../../actors/runtime/errors.ts';

/**
 * The city event list's `next_cursor`: an opaque keyset token meaning "events with seq below N". Keyset,
 * not offset, so appends between pages never shift a page. Versioned, so a token from another server
 * version (or upstream's base64 offsets) is refused instead of misread.
 */

const PREFIX = 'ev1.';

/** The token of the page that continues below `beforeSeq`. Pure. */
export const encodePageToken = (beforeSeq: number): string =>
  Buffer.from(`${PREFIX}${beforeSeq}`).toString('base64url');

/**
 * The `beforeSeq` a token stands for. Pure.
 * @throws BadRequestError (400 `cursor is not a valid pagination token; re-fetch the first page`).
 */
export function decodePageToken(token: string): number {
  const text = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, 'base64url').toString('utf8') : '';
  const m = /^ev1\.([1-9]\d{0,15})$/.exec(text);
  const seq = m ? Number(m[1]) : NaN;
  if (!Number.isSafeInteger(seq)) {
    throw new BadRequestError('cursor is not a valid pagination token; re-fetch the first page', null);
  }
  return seq;
}
