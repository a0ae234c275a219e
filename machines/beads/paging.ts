import type { BeadEntry, BeadModel, StoredBead } from './model.ts';

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

/** The smallest of the candidate sets, or undefined when none is given. This is a pure function. */
export function smallest(
  sets: ReadonlyArray<ReadonlySet<string> | undefined>,
): ReadonlySet<string> | undefined {
  let best: ReadonlySet<string> | undefined;
  for (const set of sets) if (set && (!best || set.size < best.size)) best = set;
  return best;
}

/** What a paged query reads: the model, the beads it may match, and how to test and show one. */
export interface PageQuery<T> {
  /** Every match is in this set (a secondary index entry); undefined: any bead may match. */
  candidates: ReadonlySet<string> | undefined;
  /** A test on the id alone (index membership), tried first: it touches no bead. */
  matchesId?: (id: string) => boolean;
  /** A test on the bead, for what indexes do not answer. */
  matches?: (bead: StoredBead) => boolean;
  map: (entry: BeadEntry) => T;
  size: number;
  /** Keyset position: only entries created before this ordinal. */
  before?: number;
  /** The number of matches when the caller knows it without counting (from index sizes). */
  total?: number;
}

/** Up to this many matches are sorted for a page; with more, the creation order is walked instead. */
const SORT_LIMIT = 4096;

/**
 * One page of the matches, newest first, with their total and the cursor to the next page.
 *
 * Reads only what it must. One pass over the candidates counts the matches (by id first, so index
 * membership answers without touching the beads) and keeps them while they are few; few matches are
 * sorted by creation, many are paged by walking the creation order newest first, which then fills a
 * page in about size / density steps. With `total` given and no candidates, only the walk runs.
 * This is a pure function.
 */
export function pageOf<T>(model: Readonly<BeadModel>, q: PageQuery<T>): Page<T> {
  const { candidates, size, before } = q;
  const matchesId = q.matchesId ?? (() => true);
  const matches = q.matches;
  let total = q.total;
  // Matches are kept for sorting only from candidates that may be few; `total` known and many
  // candidates: straight to the walk.
  const mayKeep = candidates !== undefined && (total === undefined || candidates.size <= SORT_LIMIT);
  let kept: BeadEntry[] | undefined;
  if (total === undefined || mayKeep) {
    let count = 0;
    kept = mayKeep ? [] : undefined;
    for (const id of candidates ?? model.beads.keys()) {
      if (!matchesId(id)) continue;
      const entry = matches || kept ? model.beads.get(id) : undefined;
      if (matches && (!entry || !matches(entry.bead))) continue;
      count++;
      if (kept && entry) {
        if (kept.length < SORT_LIMIT) kept.push(entry);
        else kept = undefined;
      }
    }
    total ??= count;
  }
  let picked: BeadEntry[] = [];
  if (kept) {
    picked = before === undefined ? kept : kept.filter((e) => e.ordinal < before);
    picked.sort((a, b) => b.ordinal - a.ordinal);
    picked.length = Math.min(picked.length, size + 1);
  } else {
    for (const [id, ordinal] of model.indexes.order.newestFirst(before)) {
      if ((candidates && !candidates.has(id)) || !matchesId(id)) continue;
      const entry = model.beads.get(id);
      if (entry?.ordinal !== ordinal || (matches && !matches(entry.bead))) continue;
      picked.push(entry);
      if (picked.length > size) break;
    }
  }
  const items = picked.slice(0, size).map(q.map);
  const page: Page<T> = { items, total };
  if (picked.length > size) page.nextCursor = encodeCursor(picked[size - 1]!.ordinal);
  return page;
}
