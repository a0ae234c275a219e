import type { CursorMap } from '../../schemas/compositeCursor.ts';
import type { Journal, Subscription } from '../../actors/journal/journal.ts';
import type { LiveCities } from '../../actors/liveCities.ts';
import { closeQuietly } from '../events/closeQuietly.ts';
import { FrameCache } from '../events/frameCache.ts';
import { toTaggedWireEvent } from '../events/wire.ts';
import type { EventFilter } from '../events/visibility.ts';
import { CursorTracker } from './cursorTracker.ts';
import type { SseWriter } from './writer.ts';

export interface SupervisorStreamOptions {
  cities: LiveCities;
  writer: SseWriter;
  /** Where to resume: each log continues after its seq here; a log absent from it starts at its beginning. */
  start: CursorMap;
  /**
   * Logs absent from `start` that begin at their head rather than their beginning: a head start whose head
   * read failed or was too slow at connect time. Each reads its head when it can, without holding the others.
   */
  pendingHeads?: ReadonlySet<string>;
  /** Only the events it serves get a frame (default: all); the others still move the cursor. */
  served?: EventFilter;
  /** Told when a log's subscription fails; the stream keeps going and retries that log. */
  onError?: (log: string, err: unknown) => void;
  /** Backoff between retries of a failing log (default 250 ms doubling to 10 s). */
  retryMinMs?: number;
  retryMaxMs?: number;
}

/** Tagged frames shared by every supervisor stream reading the same log. */
const frames = new FrameCache();

/** One log feeding the stream: its own subscription, so a stalled or failing log never blocks another. */
interface Pump {
  readonly journal: Journal;
  stopped: boolean;
  sub: Subscription | undefined;
  wake: (() => void) | undefined;
}

/**
 * The merged supervisor stream: `__supervisor__` and every city log in `cities`, each read by its own pump
 * into one writer as `event: tagged_event` frames whose `id:` is the whole composite cursor after that
 * event. Cities that attach while the stream is open join it (from the cursor's position, else from seq 0);
 * cities that detach stop being read but keep their pair in the cursor, so a later resume is exact. An
 * event that is not served gets no frame but still advances its log's pair, so the next frame's id is past
 * it and no resume ever brings it back (nor skips a served one).
 *
 * Effects: subscribes to journals and to `cities.onChange`; `close()` (also run when the writer closes)
 * releases every subscription, timer and listener.
 */
export class SupervisorStream {
  readonly #cities: LiveCities;
  readonly #writer: SseWriter;
  readonly #tracker: CursorTracker;
  readonly #pumps = new Map<string, Pump>();
  readonly #served: EventFilter;
  readonly #onError: (log: string, err: unknown) => void;
  readonly #retryMin: number;
  readonly #retryMax: number;
  readonly #pendingHeads: Set<string>;
  #unlisten: (() => void) | undefined;
  #closed = false;

  constructor(options: SupervisorStreamOptions) {
    this.#cities = options.cities;
    this.#writer = options.writer;
    this.#tracker = new CursorTracker(options.start);
    this.#pendingHeads = new Set(options.pendingHeads);
    this.#served = options.served ?? (() => true);
    this.#onError = options.onError ?? (() => {});
    this.#retryMin = options.retryMinMs ?? 250;
    this.#retryMax = options.retryMaxMs ?? 10_000;
  }

  /** Starts reading every log now in the mux and follows attach/detach from then on. */
  start(): void {
    this.#unlisten = this.#cities.onChange(() => this.#reconcile());
    this.#writer.onClose(() => this.close());
    this.#reconcile();
  }

  /** Names of the logs being read now (tests use it to watch attach and detach). */
  get watching(): string[] {
    return [...this.#pumps.keys()];
  }

  /** Stops every pump and listener. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unlisten?.();
    for (const pump of this.#pumps.values()) this.#stop(pump);
    this.#pumps.clear();
  }

  /** Brings the pumps in line with the mux: start new logs, restart replaced ones, stop departed ones. */
  #reconcile(): void {
    if (this.#closed) return;
    const logs = this.#cities.logs();
    for (const [name, journal] of logs) {
      const pump = this.#pumps.get(name);
      if (pump?.journal === journal) continue;
      if (pump) this.#stop(pump);
      if (!this.#tracker.has(name) && !this.#pendingHeads.has(name)) this.#tracker.set(name, 0);
      const fresh: Pump = { journal, stopped: false, sub: undefined, wake: undefined };
      this.#pumps.set(name, fresh);
      void this.#run(name, fresh);
    }
    for (const [name, pump] of this.#pumps) {
      if (logs.has(name)) continue;
      this.#stop(pump);
      this.#pumps.delete(name);
    }
  }

  #stop(pump: Pump): void {
    pump.stopped = true;
    pump.wake?.();
    if (pump.sub) void closeQuietly(pump.sub);
  }

  /** Reads one log into the writer until stopped; a failure is reported and retried with backoff. */
  async #run(name: string, pump: Pump): Promise<void> {
    let delay = this.#retryMin;
    while (!pump.stopped) {
      let sub: Subscription | undefined;
      try {
        if (!this.#tracker.has(name)) {
          // A head start this log could not give at connect time: until now it was absent from the ids.
          const head = await pump.journal.head();
          if (pump.stopped) return;
          this.#tracker.set(name, head);
          this.#pendingHeads.delete(name);
        }
        sub = pump.journal.subscribe(this.#tracker.get(name) ?? 0);
        pump.sub = sub;
        for await (const event of sub) {
          // A retried subscription may overlap what was already sent; the cursor says what that was.
          if (event.seq <= (this.#tracker.get(name) ?? 0)) continue;
          if (!this.#served(name, event)) {
            if (pump.stopped) break;
            this.#tracker.set(name, event.seq);
            continue;
          }
          await this.#writer.ready();
          if (pump.stopped) break;
          this.#tracker.set(name, event.seq);
          const data = frames.data(pump.journal, name, event, (e) =>
            JSON.stringify(toTaggedWireEvent(e, name)),
          );
          this.#writer.send('tagged_event', data, this.#tracker.format());
          delay = this.#retryMin;
        }
        // The log ended (closed under us): reconcile starts a new pump if the city comes back with a new log.
        return;
      } catch (err) {
        if (pump.stopped) return;
        this.#onError(name, err);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          pump.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        pump.wake = undefined;
        delay = Math.min(delay * 2, this.#retryMax);
      } finally {
        if (sub) await closeQuietly(sub);
      }
    }
  }
}
