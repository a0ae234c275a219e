import type { Journal, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { LiveFanout } from '../../actors/runtime/feed/liveFanout.ts';
import { MergedTail } from '../../actors/runtime/feed/mergedTail.ts';
import type { EventFilter } from '../../actors/runtime/feed/visibility.ts';
import type { LiveCities } from '../../actors/supervisor/liveCities.ts';
import type { CityStreamShared } from './cityStream.ts';
import { FrameCache } from './frameCache.ts';
import type { SseWriter, SseWriterOptions } from './writer.ts';

/** The flow-control bounds of an app's streams (the writer's defaults unless a test or bench tightens them). */
export type StreamLimits = Pick<SseWriterOptions, 'highWaterBytes' | 'maxBufferedBytes' | 'stallTimeoutMs'>;

/**
 * The SSE streams an app has open, so shutdown can end them (a hijacked response is invisible to Fastify,
 * and an open stream would keep `close()` waiting forever) and tests can prove none is left behind.
 */
export class StreamRegistry {
  readonly #open = new Set<SseWriter>();
  /** Applied to streams opened from now on. */
  limits: StreamLimits = {};
  /** The `event` frames of this app's city streams, shared by every stream reading the same log. */
  readonly cityFrames = new FrameCache();
  /** The `tagged_event` frames of this app's supervisor streams, shared likewise. */
  readonly taggedFrames = new FrameCache();
  /** The live fan-outs of this app's city streams, per log and event filter (held weakly by the log). */
  readonly #fanouts = new WeakMap<Journal, Map<string, LiveFanout>>();
  /** What this app's city streams share (runCityStream). */
  readonly cityStreams: CityStreamShared = {
    frames: this.cityFrames,
    fanout: (journal, filter, keep) => this.#fanout(journal, filter, keep),
  };

  /** The merged tails of this app's supervisor streams, one per event filter (see supervisorTail). */
  readonly #tails = new Map<string, MergedTail>();

  /**
   * The merged tail every supervisor stream of `filter` (served by `served`) shares: it follows each log
   * through the same fan-out as the city streams of that filter, so a log is read once for all of them.
   */
  supervisorTail(cities: LiveCities, filter: string, served: EventFilter): MergedTail {
    let tail = this.#tails.get(filter);
    if (!tail) {
      tail = new MergedTail({
        cities,
        fanout: (journal, keep) => this.#fanout(journal, filter, keep),
        keep: served,
      });
      this.#tails.set(filter, tail);
    }
    return tail;
  }

  #fanout(journal: Journal, filter: string, keep: (event: JournalEvent) => boolean): LiveFanout {
    let byFilter = this.#fanouts.get(journal);
    if (!byFilter) this.#fanouts.set(journal, (byFilter = new Map<string, LiveFanout>()));
    let fanout = byFilter.get(filter);
    // One without members holds nothing (no subscription), so it is kept for the next stream.
    if (!fanout) byFilter.set(filter, (fanout = new LiveFanout(journal, keep)));
    return fanout;
  }

  /** Tracks `writer` until it closes. */
  add(writer: SseWriter): void {
    this.#open.add(writer);
    writer.onClose(() => this.#open.delete(writer));
  }

  /** How many streams are open now. */
  get size(): number {
    return this.#open.size;
  }

  /** The open streams, oldest first. */
  writers(): SseWriter[] {
    return [...this.#open];
  }

  /** Ends every open stream (clients see a clean end and reconnect). Effect: closes their responses. */
  closeAll(reason: 'shutdown' | 'ended' = 'shutdown'): void {
    for (const writer of [...this.#open]) writer.close(reason);
  }
}

const registries = new WeakMap<object, StreamRegistry>();

/**
 * The registry of the app built over `owner` (its `AppDeps`): one per app, found again from the same deps
 * object without a global or a Fastify decoration (route plugins are encapsulated).
 */
export function streamRegistry(owner: object): StreamRegistry {
  let registry = registries.get(owner);
  if (!registry) registries.set(owner, (registry = new StreamRegistry()));
  return registry;
}
