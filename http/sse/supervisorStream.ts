import {
  SupervisorFeed,
  type SupervisorFeedOptions,
  type SupervisorFeedSink,
} from '../../actors/runtime/feed/supervisorFeed.ts';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { toTaggedWireEvent } from '../events/wire.ts';
import type { FrameCache } from './frameCache.ts';
import type { SseWriter } from './writer.ts';

const render = (event: JournalEvent, log: string): string => JSON.stringify(toTaggedWireEvent(event, log));

/**
 * The supervisor stream: the supervisor feed (actors/runtime/feed/supervisorFeed.ts: per-log reading, retries,
 * joining cities, the cursor) framed into `writer` as `event: tagged_event` frames whose `id:` is the
 * composite cursor after the event. `frames` (the app's) renders each event once for every stream at a
 * log's live edge. The feed runs until the writer closes (client gone, slow reader, shutdown).
 *
 * Effects: starts the feed; closing the writer closes it and releases all it holds.
 */
export function runSupervisorStream(
  options: SupervisorFeedOptions,
  writer: SseWriter,
  frames: FrameCache,
): SupervisorFeed {
  const sink: SupervisorFeedSink = {
    ready: () => writer.ready(),
    deliver: (log, event, cursorAfter, journal) => {
      writer.send('tagged_event', frames.data(journal, log, event, render), cursorAfter);
    },
  };
  const feed = new SupervisorFeed(options, sink);
  writer.onClose(() => feed.close());
  feed.start();
  return feed;
}
