import { parseCursor } from '../../actors/runtime/cursor.ts';
import type {
  MergedBatch,
  MergedTail,
  TailMember,
  TailWatcher,
} from '../../actors/runtime/feed/mergedTail.ts';
import {
  SupervisorFeed,
  type SupervisorFeedOptions,
  type SupervisorFeedSink,
} from '../../actors/runtime/feed/supervisorFeed.ts';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import type { CompositeCursor, CursorMap } from '../../schemas/compositeCursor.ts';
import { toTaggedWireEvent } from '../events/wire.ts';
import { FrameBytes } from './frameBytes.ts';
import type { FrameCache } from './frameCache.ts';
import type { SseWriter } from './writer.ts';

const render = (event: JournalEvent, log: string): string => JSON.stringify(toTaggedWireEvent(event, log));

/** What the supervisor streams of one app share: rendered frames, and the merged tail of their filter. */
export interface SupervisorStreamShared {
  frames: FrameCache;
  tail: MergedTail;
}

/** Where a stream starts: at the tail (a head start), or after a cursor (a resume). */
export type SupervisorStreamStart = { head: true } | { after: CursorMap };

/**
 * The supervisor stream: `event: tagged_event` frames whose `id:` is the composite cursor after the event,
 * into `writer` until it closes (client gone, slow reader, shutdown). At the live edge the stream is a
 * member of the app's merged tail (actors/runtime/feed/mergedTail.ts), which hands every such stream the
 * same batches, encoded once for all; a stream behind it (a resume, or a reader too slow for it) reads the
 * logs by itself with backpressure (a SupervisorFeed over `feed`'s options) and rejoins the tail when its
 * cursor is the tail's. The tail must be running for a head start (the route starts it).
 *
 * Effects: a tail membership or a feed of its own; closing the writer releases either.
 */
export function runSupervisorStream(
  feed: Omit<SupervisorFeedOptions, 'start' | 'pendingHeads' | 'handOff'>,
  start: SupervisorStreamStart,
  writer: SseWriter,
  shared: SupervisorStreamShared,
): void {
  const { tail, frames } = shared;
  let solo: SupervisorFeed | undefined;
  const member: TailMember = {
    hasRoom: () => writer.hasRoom(),
    take: (batch) => {
      const bytes = batchBytes(batch, frames);
      // A batch past the reader's bound is read again by itself, with backpressure, not cut off.
      if (!writer.hasRoomFor(bytes.body.length)) return false;
      writer.sendBytes(bytes);
      return true;
    },
    release: (cursor) => {
      if (!writer.closed) alone(parseCursor(cursor));
    },
  };
  const watcher: TailWatcher = {
    cursor: () => solo!.cursor,
    rejoin: () => {
      solo?.close();
      solo = undefined;
      // Attached before it stops watching: a tail left with neither would stop under it.
      tail.attach(member);
      tail.unwatch(watcher);
    },
  };
  const sink: SupervisorFeedSink = {
    ready: () => writer.ready(),
    deliver: (log, event, cursorAfter, journal) => {
      writer.send('tagged_event', frames.data(journal, log, event, render), cursorAfter);
    },
  };
  const alone = (after: CursorMap): void => {
    const handOff = (cursor: CompositeCursor): boolean => {
      if (cursor !== tail.cursor || !tail.attach(member, cursor)) return false;
      solo = undefined;
      tail.unwatch(watcher);
      return true;
    };
    solo = new SupervisorFeed({ ...feed, start: after, handOff }, sink);
    tail.watch(watcher);
    solo.start();
  };
  writer.onClose(() => {
    solo?.close();
    tail.unwatch(watcher);
    tail.leave(member);
  });
  if (writer.closed) return;
  if ('head' in start && tail.attach(member)) return;
  alone('after' in start ? start.after : parseCursor(tail.cursor));
}

/** The frames of a batch, encoded once for every stream it is handed to (batches are short-lived). */
const encoded = new WeakMap<MergedBatch, FrameBytes>();

function batchBytes(batch: MergedBatch, frames: FrameCache): FrameBytes {
  let bytes = encoded.get(batch);
  if (!bytes) {
    let text = '';
    for (const item of batch.items) {
      const data = frames.data(item.journal, item.log, item.event, render);
      text += `id: ${item.cursor}\nevent: tagged_event\ndata: ${data}\n\n`;
    }
    bytes = FrameBytes.of(text);
    encoded.set(batch, bytes);
  }
  return bytes;
}
