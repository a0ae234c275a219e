import type { Journal, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { readCityPage } from '../../actors/runtime/feed/cityPage.ts';
import type { ListBodyWireEvent } from '../../schemas/eventBodies.ts';
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
 * One page of a city's events, newest first (the feed's `readCityPage`), as a keyset page: `next_cursor`
 * continues below the last item. The head the page is a snapshot at is also returned (X-GC-Index). `total`
 * is the head when unfiltered, else the number of kept matches at or below the head.
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
  const page = await readCityPage(journal, {
    ...(query.type ? { type: query.type } : {}),
    ...(query.actor ? { actor: query.actor } : {}),
    ...(since ? { since } : {}),
    ...(query.after_seq ? { afterSeq: query.after_seq } : {}),
    ...(before !== undefined ? { beforeSeq: before } : {}),
    ...(query.keep ? { keep: query.keep } : {}),
    limit: Math.min(query.limit || DEFAULT_PAGE, MAX_PAGE),
  });
  const items = page.events.map(toWireEvent);
  const last = items.at(-1);
  const body: ListBodyWireEvent = {
    items,
    total: page.total,
    ...(page.more && last ? { next_cursor: encodePageToken(last.seq) } : {}),
  };
  return { body, head: page.head };
}
