import type { Journal, JournalEvent, ListFilter } from '../../actors/journal/journal.ts';
import type { ListBodyWireEvent } from '../../schemas/eventBodies.ts';
import { newestKept } from './newestKept.ts';
import { decodePageToken, encodePageToken } from './pageToken.ts';
import { sinceCutoff } from './since.ts';
import { toWireEvent } from './wire.ts';

/** Page size of the city event list: default, and ceiling (larger requests are clamped). */
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

export interface CityListQuery {
  type?: string;
  actor?: string;
  since?: string;
  after_seq?: number;
  limit?: number;
  cursor?: string;
  /** Only events it accepts (default: all); the others are skipped but still counted by positions. */
  keep?: (event: JournalEvent) => boolean;
}

/**
 * One page of a city's events, newest first (seq descending), as a keyset page: `next_cursor` continues
 * below the last item. The page is a snapshot at the head read first, which is also returned (X-GC-Index),
 * so no item is newer than the index a client passes back. `total` is the head when unfiltered (a position,
 * as `X-GC-Index`: skipped events count), else the number of kept matches at or below the head.
 *
 * Effects: reads the journal. @throws BadRequestError for a bad `since` or `cursor`; journal errors.
 */
export async function listCityEvents(
  journal: Journal,
  query: CityListQuery,
  now: number = Date.now(),
): Promise<{ body: ListBodyWireEvent; head: number }> {
  const since = sinceCutoff(query.since, now);
  const before =
    query.cursor !== undefined && query.cursor !== '' ? decodePageToken(query.cursor) : undefined;
  const limit = Math.min(query.limit || DEFAULT_PAGE, MAX_PAGE);
  const head = await journal.head();
  const filter: ListFilter = {
    ...(query.type ? { type: query.type } : {}),
    ...(query.actor ? { actor: query.actor } : {}),
    ...(since ? { since } : {}),
    ...(query.after_seq ? { afterSeq: query.after_seq } : {}),
  };
  const keep = query.keep ?? (() => true);
  // One more than a page: whether a next page exists is whether a kept event lies below this one.
  const page = await newestKept(
    journal,
    { ...filter, beforeSeq: Math.min(before ?? head + 1, head + 1) },
    limit + 1,
    keep,
  );
  const items = page.slice(0, limit).map(toWireEvent);
  const filtered = Object.keys(filter).length > 0;
  const total = filtered
    ? (await journal.list({ ...filter, beforeSeq: head + 1 })).filter(keep).length
    : head;
  const last = items.at(-1);
  const body: ListBodyWireEvent = {
    items,
    total,
    ...(page.length > limit && last ? { next_cursor: encodePageToken(last.seq) } : {}),
  };
  return { body, head };
}
