import { CityFeed, type CityFeedSink } from '../../actors/runtime/feed/cityFeed.ts';
import type {
  FanoutBatch,
  FanoutMember,
  FanoutRelease,
  LiveFanout,
} from '../../actors/runtime/feed/liveFanout.ts';
import type { Journal, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { toWireEvent } from '../events/wire.ts';
import { FrameBytes } from './frameBytes.ts';
import type { FrameCache } from './frameCache.ts';
import type { SseWriter } from './writer.ts';

const render = (event: JournalEvent): string => JSON.stringify(toWireEvent(event));

/** What the city streams of one app share: rendered frames, and one live fan-out per log and filter. */
export interface CityStreamShared {
  frames: FrameCache;
  /** The fan-out of `journal`'s events that `keep` (named `filter`) accepts. */
  fanout(journal: Journal, filter: string, keep: (event: JournalEvent) => boolean): LiveFanout;
}

/**
 * Streams one city log into `writer` as `event: event` frames whose `id:` is the seq, starting after
 * `afterSeq`, until the writer closes (client gone, slow reader, shutdown) or the log ends or fails; then it
 * ends the response so the client reconnects with its Last-Event-ID. Events `keep` refuses get no frame;
 * the next frame's id (its seq) is past them, so a resume never brings them back.
 *
 * At the log's live edge the stream is a member of the log's fan-out (`shared.fanout`), which hands every
 * such stream the same batches, encoded once as bytes for all of them (one socket write per stream per
 * batch). A stream behind it (a resume, or a reader too slow for the fan-out) reads the log by itself, with
 * backpressure, and rejoins the fan-out when it reaches it. Never throws.
 *
 * Effects: holds a journal subscription or a fan-out membership, released before the returned promise
 * settles.
 */
export async function runCityStream(
  journal: Journal,
  afterSeq: number,
  writer: SseWriter,
  shared: CityStreamShared,
  onError: (err: unknown) => void = () => {},
  keep: (event: JournalEvent) => boolean = () => true,
  filter = 'all',
): Promise<void> {
  const frame = (event: JournalEvent): string =>
    `id: ${event.seq}\nevent: event\ndata: ${shared.frames.data(journal, '', event, render)}\n\n`;
  let released: (release: FanoutRelease | undefined) => void = () => {};
  const member: FanoutMember = {
    position: afterSeq,
    hasRoom: () => writer.hasRoom(),
    take: (batch) => {
      if (batch.events.length === 0) return true;
      const bytes =
        batch.after === member.position
          ? sharedBytes(batch, frame)
          : FrameBytes.of(framesAfter(batch, member.position, frame));
      // A batch past the reader's bound is read again by itself, with backpressure, not cut off.
      if (!writer.hasRoomFor(bytes.body.length)) return false;
      writer.sendBytes(bytes);
      return true;
    },
    release: (release) => released(release),
  };
  let feed: CityFeed | undefined;
  let fanout: LiveFanout | undefined;
  writer.onClose(() => {
    feed?.close();
    fanout?.leave(member);
    released(undefined);
  });
  const sink: CityFeedSink = {
    ready: () => (writer.hasRoom() ? undefined : writer.ready()),
    deliver: (event) =>
      void writer.send('event', shared.frames.data(journal, '', event, render), String(event.seq)),
  };
  try {
    while (!writer.closed) {
      fanout = shared.fanout(journal, filter, keep);
      const live = fanout;
      const joined = new Promise<FanoutRelease | undefined>((resolve) => (released = resolve));
      if (!live.attach(member)) {
        // Behind the fan-out: read on alone (with backpressure) until it can join, at some event's position.
        feed = new CityFeed(journal, member.position, {
          keep,
          onError,
          handOff: (position) => {
            member.position = position;
            return live.attach(member);
          },
        });
        const outcome = await feed.run(sink);
        member.position = Math.max(member.position, feed.position);
        feed = undefined;
        if (outcome === 'done') return;
      }
      const release = await joined;
      if (release === undefined || release.why === 'ended') return;
      if (release.why === 'failed') {
        onError(release.err);
        return;
      }
    }
  } finally {
    fanout?.leave(member);
    writer.close('ended');
  }
}

/** The frames of a batch for every member at its start, encoded once (batches are short-lived). */
const encoded = new WeakMap<FanoutBatch, FrameBytes>();

function sharedBytes(batch: FanoutBatch, frame: (event: JournalEvent) => string): FrameBytes {
  let bytes = encoded.get(batch);
  if (!bytes) {
    bytes = FrameBytes.of(framesAfter(batch, batch.after, frame));
    encoded.set(batch, bytes);
  }
  return bytes;
}

function framesAfter(batch: FanoutBatch, position: number, frame: (event: JournalEvent) => string): string {
  let text = '';
  for (const event of batch.events) if (event.seq > position) text += frame(event);
  return text;
}
