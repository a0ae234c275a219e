import type { BeadEntry } from './model.ts';

/** Default page size of the list operations, and the largest one may ask for (upstream's figures). */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

/** A page of matches, newest first, with the total number of matches and the cursor to the rest. */
export interface Page<T> {
  items: T[];
  total: number;
  nextCursor?: string;
}

/**
 * Cursors are keyset tokens: `v1:<ordinal>` of the last entry served, base64url. Paging by position in
 * creation order is stable under concurrent writes, where offsets would skip or repeat entries.
 */
export function encodeCursor(ordinal: number): string {
  return Buffer.from(`v1:${ordinal}`).toString('base64url');
}

/** The ordinal in a cursor, or undefined when it is not one of ours. This is a pure function. */
export function decodeCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const m = /^v1:([1-9][0-9]{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return m ? Number(m[1]) : undefined;
}

/** The page size for a requested `limit`: 0 or absent is the default, larger than the cap is the cap. */
export const pageSize = (limit: number | undefined): number =>
  !limit ? DEFAULT_PAGE_SIZE : Math.min(limit, MAX_PAGE_SIZE);

/**
 * One page of the entries that match, newest first (creation order descending), strictly older than
 * the cursor's ordinal. One pass over `entries` (given oldest first) holding at most `size + 1`
 * candidates, so paging a large city costs no large arrays. This is a pure function.
 */
export function pageNewestFirst<T>(
  entries: Iterable<BeadEntry>,
  matches: (entry: BeadEntry) => boolean,
  map: (entry: BeadEntry) => T,
  size: number,
  before?: number,
): Page<T> {
  let total = 0;
  // A ring of the newest size + 1 matches older than the cursor: the extra one says a next page exists.
  const ring: BeadEntry[] = new Array<BeadEntry>(size + 1);
  let kept = 0;
  for (const entry of entries) {
    if (!matches(entry)) continue;
    total++;
    if (before !== undefined && entry.ordinal >= before) continue;
    ring[kept % (size + 1)] = entry;
    kept++;
  }
  const count = Math.min(kept, size);
  const items: T[] = [];
  for (let i = 1; i <= count; i++) items.push(map(ring[(kept - i) % (size + 1)]!));
  const page: Page<T> = { items, total };
  if (kept > size) page.nextCursor = encodeCursor(ring[(kept - size) % (size + 1)]!.ordinal);
  return page;
}
