import { cursorOfHeads, headPositions } from '../../actors/cursor.ts';
import type { CursorMap } from '../../schemas/compositeCursor.ts';
import type { Journal, JournalEvent, ListFilter } from '../../actors/journal/journal.ts';
import type { SupervisorEventListOutputBody } from '../../schemas/eventBodies.ts';
import { newestKept } from './newestKept.ts';
import { sinceCutoff } from './since.ts';
import type { EventFilter } from './visibility.ts';
import { toTaggedWireEvent } from './wire.ts';

export interface SupervisorListQuery {
  type?: string;
  actor?: string;
  since?: string;
  limit?: number;
  /** Parsed `after_cursor`: each log only after its seq here (a log absent from it: from its start). */
  after?: CursorMap;
  /** Only the events it serves (default: all); the others are skipped but still counted by positions. */
  served?: EventFilter;
}

interface Sourced {
  event: JournalEvent;
  source: string;
  at: number;
}

const byTime = (a: Sourced, b: Sourced): number =>
  a.at - b.at || (a.source < b.source ? -1 : a.source > b.source ? 1 : 0) || a.event.seq - b.event.seq;

/**
 * Every log's events merged, oldest first by `ts` (ties by log name, then seq), `limit` keeping the newest N.
 * The heads are read first and each log is listed up to its head, so `event_cursor` describes exactly the
 * listed snapshot: resuming the stream from it neither repeats nor skips an event. A log that cannot be read
 * is left out (best effort, as upstream). Unfiltered, `total` is the sum of the heads (positions, as upstream's
 * sum of LatestSeq: events not served count); filtered, the number of served matches.
 *
 * Effects: reads every journal. @throws BadRequestError for a bad `since`; a failure to read the heads.
 */
export async function listSupervisorEvents(
  logs: ReadonlyMap<string, Journal>,
  query: SupervisorListQuery,
  now: number = Date.now(),
): Promise<SupervisorEventListOutputBody> {
  const since = sinceCutoff(query.since, now);
  const limit = query.limit ?? 0;
  const heads = await headPositions(logs);
  const base: ListFilter = {
    ...(query.type ? { type: query.type } : {}),
    ...(query.actor ? { actor: query.actor } : {}),
    ...(since ? { since } : {}),
  };
  const filtered = Object.keys(base).length > 0 || query.after !== undefined;
  const served = query.served ?? (() => true);
  const lists = await Promise.all(
    [...logs].map(async ([source, journal]): Promise<Sourced[]> => {
      const filter: ListFilter = {
        ...base,
        beforeSeq: (heads.get(source) ?? 0) + 1,
        ...(query.after ? { afterSeq: query.after.get(source) ?? 0 } : {}),
      };
      const keep = (event: JournalEvent): boolean => served(source, event);
      try {
        // Unfiltered, the newest N overall are among each log's newest N served: read only those tails.
        const events =
          !filtered && limit > 0
            ? await newestKept(journal, filter, limit, keep)
            : (await journal.list(filter)).filter(keep);
        return events.map((event) => ({ event, source, at: Date.parse(event.ts) }));
      } catch {
        return [];
      }
    }),
  );
  const merged = lists.flat().sort(byTime);
  const total = filtered ? merged.length : [...heads.values()].reduce((a, b) => a + b, 0);
  const kept = limit > 0 ? merged.slice(-limit) : merged;
  return {
    event_cursor: cursorOfHeads(heads),
    items: kept.map((s) => toTaggedWireEvent(s.event, s.source)),
    total,
  };
}
