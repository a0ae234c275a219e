/**
 * The keyed messages and submits a session accepted (`Idempotency-Key`), kept in its bead's metadata so a
 * retry after a restart or a failover gets the first 202 instead of a second delivery. Pure.
 */
import { K } from './sessionRecord.ts';

/**
 * The newest keys a session keeps. A client retries a lost 202 within seconds or minutes, not after
 * hundreds of later messages to the same session, and the list rides on every later event of the session
 * (a `bead.updated` carries the whole bead): a fixed window keeps both the bead and those events small.
 */
export const KEYED_WINDOW = 32;

/**
 * Hex digits of the request hash kept: 128 bits tell one client's retry from its other bodies as well as
 * 256 do, in half the bytes.
 */
const HASH_DIGITS = 32;

/** One accepted keyed request: `key` is `<op>:<Idempotency-Key>`, the rest is its first 202. */
export interface KeyedAccept {
  key: string;
  hash: string;
  requestId: string;
  cursor: string;
}

type Row = [key: string, hash: string, requestId: string, cursor: string];

/** The session's window, oldest first; an unreadable value reads as empty (it only loses retries). */
export function keyedAccepts(meta: Readonly<Record<string, string>>): KeyedAccept[] {
  const raw = meta[K.keyedRequests];
  if (!raw) return [];
  try {
    const rows = JSON.parse(raw) as unknown;
    if (!Array.isArray(rows)) return [];
    return rows
      .filter((r): r is Row => Array.isArray(r) && r.length === 4 && r.every((v) => typeof v === 'string'))
      .map(([key, hash, requestId, cursor]) => ({ key, hash, requestId, cursor }));
  } catch {
    return [];
  }
}

/** Where a keyed request stands: a retry of an accepted one (same body), another body, or new. */
export type KeyedLookup =
  { kind: 'retry'; first: KeyedAccept } | { kind: 'mismatch'; first: KeyedAccept } | { kind: 'new' };

export function lookupKeyed(
  meta: Readonly<Record<string, string>>,
  request: { key: string; hash: string },
): KeyedLookup {
  const first = keyedAccepts(meta).find((a) => a.key === request.key);
  if (!first) return { kind: 'new' };
  return first.hash === request.hash.slice(0, HASH_DIGITS)
    ? { kind: 'retry', first }
    : { kind: 'mismatch', first };
}

/** The window's stored value with `accepted` added as the newest, the oldest past the bound dropped. */
export function withKeyed(meta: Readonly<Record<string, string>>, accepted: KeyedAccept): string {
  const rows: Row[] = [...keyedAccepts(meta), accepted]
    .slice(-KEYED_WINDOW)
    .map((a) => [a.key, a.hash.slice(0, HASH_DIGITS), a.requestId, a.cursor]);
  return JSON.stringify(rows);
}
