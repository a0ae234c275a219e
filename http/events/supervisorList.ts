import { cursorOfHeads } from '../../actors/runtime/cursor.ts';
import { mergeSupervisorEvents } from '../../actors/runtime/feed/supervisorMerge.ts';
import type { EventFilter } from '../../actors/runtime/feed/visibility.ts';
import type { Journal } from '../../actors/runtime/journal/journal.ts';
import type { CursorMap } from '../../schemas/compositeCursor.ts';
import type { SupervisorEventListOutputBody } from '../../schemas/eventBodies.ts';
import { sinceCutoff } from './since.ts';
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

/**
 * The supervisor event list: the feed's merge of every log (actors/runtime/feed/supervisorMerge.ts) as tagged wire
 * events, with `event_cursor` the heads the merge is a snapshot at, so resuming the stream from it neither
 * repeats nor skips an event.
 *
 * Effects: reads every journal. @throws BadRequestError for a bad `since`; a failure to read the heads.
 */
export async function listSupervisorEvents(
  logs: ReadonlyMap<string, Journal>,
  query: SupervisorListQuery,
  now: number = Date.now(),
): Promise<SupervisorEventListOutputBody> {
  const { since, ...rest } = query;
  const cutoff = sinceCutoff(since, now);
  const merge = await mergeSupervisorEvents(logs, { ...rest, ...(cutoff ? { since: cutoff } : {}) });
  return {
    event_cursor: cursorOfHeads(merge.heads),
    items: merge.items.map((m) => toTaggedWireEvent(m.event, m.log)),
    total: merge.total,
  };
}
