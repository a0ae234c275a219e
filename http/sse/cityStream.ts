import type { Journal, JournalEvent } from '../../actors/journal/journal.ts';
import { FrameCache } from '../events/frameCache.ts';
import { toWireEvent } from '../events/wire.ts';
import { closeQuietly } from '../events/closeQuietly.ts';
import type { SseWriter } from './writer.ts';

const frames = new FrameCache();
const render = (event: JournalEvent): string => JSON.stringify(toWireEvent(event));

/**
 * Streams one city log into `writer` as `event: event` frames whose `id:` is the seq, starting after
 * `afterSeq`, until the writer closes (client gone, slow reader, shutdown) or the log ends or fails; then it
 * ends the response so the client reconnects with its Last-Event-ID. Events `keep` refuses get no frame;
 * the next frame's id (its seq) is past them, so a resume never brings them back. Never throws.
 *
 * Effects: holds one journal subscription, released before the returned promise settles.
 */
export async function runCityStream(
  journal: Journal,
  afterSeq: number,
  writer: SseWriter,
  onError: (err: unknown) => void = () => {},
  keep: (event: JournalEvent) => boolean = () => true,
): Promise<void> {
  let sub;
  try {
    sub = journal.subscribe(afterSeq);
    const opened = sub;
    writer.onClose(() => void closeQuietly(opened));
    for await (const event of sub) {
      if (!keep(event)) continue;
      await writer.ready();
      if (writer.closed) break;
      writer.send('event', frames.data(journal, '', event, render), String(event.seq));
    }
  } catch (err) {
    if (!writer.closed) onError(err);
  } finally {
    if (sub) await closeQuietly(sub);
    writer.close('ended');
  }
}
