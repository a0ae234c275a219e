import type { Journal, JournalEvent, ListFilter } from '../journal/journal.ts';
import { newestKept } from './newestKept.ts';

export interface CityPageQuery {
  type?: string;
  actor?: string;
  /** Only events at or after this instant. */
  since?: Date;
  /** Only events after this seq (0 or absent: from the start). */
  afterSeq?: number;
  /** Only events below this seq (a keyset page continuing a previous one). */
  beforeSeq?: number;
  /** Page size, positive. */
  limit: number;
  /** Only events it accepts (default: all); the others are skipped but still counted by positions. */
  keep?: (event: JournalEvent) => boolean;
}

export interface CityPage {
  /** Newest first, at most `limit`, none above `head`. */
  events: JournalEvent[];
  /** The head read first: the snapshot the page describes. */
  head: number;
  /** Unfiltered, the head (a position: skipped events count); else the kept matches at or below it. */
  total: number;
  /** Whether a kept event lies below the page's last one. */
  more: boolean;
}

/**
 * One page of a city's events, newest first (seq descending), read as a snapshot at the head read first,
 * so no event is newer than the head a client passes back.
 *
 * Effects: reads the journal. Throws what the journal throws.
 */
export async function readCityPage(journal: Journal, query: CityPageQuery): Promise<CityPage> {
  const head = await journal.head();
  const filter: ListFilter = {
    ...(query.type ? { type: query.type } : {}),
    ...(query.actor ? { actor: query.actor } : {}),
    ...(query.since ? { since: query.since } : {}),
    ...(query.afterSeq ? { afterSeq: query.afterSeq } : {}),
  };
  const keep = query.keep ?? (() => true);
  // One more than a page: whether a next page exists is whether a kept event lies below this one.
  const page = await newestKept(
    journal,
    { ...filter, beforeSeq: Math.min(query.beforeSeq ?? head + 1, head + 1) },
    query.limit + 1,
    keep,
  );
  const filtered = Object.keys(filter).length > 0;
  const total = filtered
    ? (await journal.list({ ...filter, beforeSeq: head + 1 })).filter(keep).length
    : head;
  return { events: page.slice(0, query.limit), head, total, more: page.length > query.limit };
}
