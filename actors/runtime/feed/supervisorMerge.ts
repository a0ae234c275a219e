import type { CursorMap } from '../../../schemas/compositeCursor.ts';
import { headPositions } from '../cursor.ts';
import type { Journal, JournalEvent, ListFilter } from '../journal/journal.ts';
import { newestKept } from './newestKept.ts';
import type { EventFilter } from './visibility.ts';

export interface SupervisorMergeQuery {
  type?: string;
  actor?: string;
  /** Only events at or after this instant. */
  since?: Date;
  /** Keep only the newest N; 0 or absent = all. */
  limit?: number;
  /** Each log only after its seq here (a log absent from it: from its start). */
  after?: CursorMap;
  /** Only the events it serves (default: all); the others are skipped but still counted by positions. */
  served?: EventFilter;
}

/** One event of the merge, with the log it came from. */
export interface MergedEvent {
  readonly log: string;
  readonly event: JournalEvent;
}

export interface SupervisorMerge {
  /** Every log's head when the merge began: the snapshot the items describe. */
  heads: Map<string, number>;
  /** Oldest first by `ts`, ties by log name, then seq. */
  items: MergedEvent[];
  /** Unfiltered, the sum of the heads (positions: events not served count); filtered, the served matches. */
  total: number;
}

interface Timed extends MergedEvent {
  at: number;
}

const byTime = (a: Timed, b: Timed): number =>
  a.at - b.at || (a.log < b.log ? -1 : a.log > b.log ? 1 : 0) || a.event.seq - b.event.seq;

/**
 * Every log's events merged, oldest first by `ts` (ties by log name, then seq), `limit` keeping the newest N.
 * The heads are read first and each log is listed up to its head, so the heads describe exactly the merged
 * snapshot: resuming a feed from them neither repeats nor skips an event. A log that cannot be read is left
 * out (best effort, as upstream).
 *
 * Effects: reads every journal. @throws a failure to read the heads.
 */
export async function mergeSupervisorEvents(
  logs: ReadonlyMap<string, Journal>,
  query: SupervisorMergeQuery,
): Promise<SupervisorMerge> {
  const limit = query.limit ?? 0;
  const heads = await headPositions(logs);
  const base: ListFilter = {
    ...(query.type ? { type: query.type } : {}),
    ...(query.actor ? { actor: query.actor } : {}),
    ...(query.since ? { since: query.since } : {}),
  };
  const filtered = Object.keys(base).length > 0 || query.after !== undefined;
  const served = query.served ?? (() => true);
  const lists = await Promise.all(
    [...logs].map(async ([log, journal]): Promise<Timed[]> => {
      const filter: ListFilter = {
        ...base,
        beforeSeq: (heads.get(log) ?? 0) + 1,
        ...(query.after ? { afterSeq: query.after.get(log) ?? 0 } : {}),
      };
      const keep = (event: JournalEvent): boolean => served(log, event);
      try {
        // Unfiltered, the newest N overall are among each log's newest N served: read only those tails.
        const events =
          !filtered && limit > 0
            ? await newestKept(journal, filter, limit, keep)
            : (await journal.list(filter)).filter(keep);
        return events.map((event) => ({ log, event, at: Date.parse(event.ts) }));
      } catch {
        return [];
      }
    }),
  );
  const merged = lists.flat().sort(byTime);
  const total = filtered ? merged.length : [...heads.values()].reduce((a, b) => a + b, 0);
  return { heads, items: limit > 0 ? merged.slice(-limit) : merged, total };
}
