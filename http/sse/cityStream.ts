import { CityFeed, type CityFeedSink } from '../../actors/feed/cityFeed.ts';
import type { Journal, JournalEvent } from '../../actors/journal/journal.ts';
import { toWireEvent } from '../events/wire.ts';
import type { FrameCache } from './frameCache.ts';
import type { SseWriter } from './writer.ts';

const render = (event: JournalEvent): string => JSON.stringify(toWireEvent(event));

/**
 * Streams one city log (actors/feed/cityFeed.ts) into `writer` as `event: event` frames whose `id:` is the
 * seq, starting after `afterSeq`, until the writer closes (client gone, slow reader, shutdown) or the log
 * ends or fails; then it ends the response so the client reconnects with its Last-Event-ID. Events `keep`
 * refuses get no frame; the next frame's id (its seq) is past them, so a resume never brings them back.
 * `frames` (the app's) renders each event once for every stream at the log's live edge. Never throws.
 *
 * Effects: holds one journal subscription, released before the returned promise settles.
 */
export async function runCityStream(
  journal: Journal,
  afterSeq: number,
  writer: SseWriter,
  frames: FrameCache,
  onError: (err: unknown) => void = () => {},
  keep: (event: JournalEvent) => boolean = () => true,
): Promise<void> {
  const feed = new CityFeed(journal, afterSeq, { keep, onError });
  const sink: CityFeedSink = {
    ready: () => (writer.hasRoom() ? undefined : writer.ready()),
    deliver: (event) => {
      writer.send('event', frames.data(journal, '', event, render), String(event.seq));
    },
  };
  writer.onClose(() => feed.close());
  try {
    await feed.run(sink);
  } finally {
    writer.close('ended');
  }
}
