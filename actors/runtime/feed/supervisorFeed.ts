import type { CompositeCursor, CursorMap } from '../../../schemas/compositeCursor.ts';
import { headPositionsWithin } from '../cursor.ts';
import type { Journal, JournalEvent, Subscription } from '../journal/journal.ts';
import { closeQuietly } from './closeQuietly.ts';
import { CursorTracker } from './cursorTracker.ts';
import type { EventFilter } from './visibility.ts';

/**
 * Where the supervisor feed hands its items: a stream writer in http/, an array in a test. The feed awaits
 * `ready()` before each served event, so a consumer that cannot keep up holds back the log that feeds it
 * (never the others) instead of growing memory. Items are passed as arguments, not wrapped in an object: the
 * feed allocates nothing per event beyond the cursor string.
 */
export interface SupervisorFeedSink {
  ready(): Promise<void>;
  /**
   * One served event of `log` (read from `journal`, so a consumer can cache its rendering per log); `cursorAfter`
   * is the whole composite cursor once it is delivered: resuming from it neither repeats nor skips an event.
   */
  deliver(log: string, event: JournalEvent, cursorAfter: CompositeCursor, journal: Journal): void;
}

/** The logs the supervisor feed merges, as the supervisor's live cities give them (runtime/ owns the shape). */
export interface LiveLogs {
  /** Every open log by name, the supervisor's own included. */
  logs(): Map<string, Journal>;
  /** Listens for a log attached, changed or detached; returns the function that stops listening. */
  onChange(listener: () => void): () => void;
}

export interface SupervisorFeedOptions {
  cities: LiveLogs;
  /** Where to resume: each log continues after its seq here; a log absent from it starts at its beginning. */
  start: CursorMap;
  /**
   * Logs absent from `start` that begin at their head rather than their beginning: a head start whose head
   * read failed or was too slow at connect time. Each reads its head when it can, without holding the others.
   */
  pendingHeads?: ReadonlySet<string>;
  /** Only the events it serves are delivered (default: all); the others still move the cursor. */
  served?: EventFilter;
  /** Told when a log's subscription fails; the feed keeps going and retries that log. */
  onError?: (log: string, err: unknown) => void;
  /** Backoff between retries of a failing log (default 250 ms doubling to 10 s). */
  retryMinMs?: number;
  retryMaxMs?: number;
}

/** Where a supervisor feed starts: `start` and `pendingHeads` of its options. */
export interface FeedStart {
  start: CursorMap;
  pendingHeads?: ReadonlySet<string>;
}

/**
 * The start of a feed resuming after `resume`, or, without one, at every log's head as read now. A log
 * whose head cannot be read within `headWaitMs` (it fails or its store is stalled) neither fails nor holds
 * up the others: it is left pending and reads its head when it can. Effects: one `head()` per log without
 * a resume; never throws.
 */
export async function feedStart(
  logs: ReadonlyMap<string, Journal>,
  resume: CursorMap | undefined,
  headWaitMs: number,
): Promise<FeedStart> {
  if (resume) return { start: resume };
  const head = await headPositionsWithin(logs, headWaitMs);
  return { start: head.positions, pendingHeads: head.pending };
}

/** One log feeding the feed: its own subscription, so a stalled or failing log never blocks another. */
interface Pump {
  readonly journal: Journal;
  stopped: boolean;
  sub: Subscription | undefined;
  wake: (() => void) | undefined;
}

/**
 * The merged supervisor feed: `__supervisor__` and every city log in `cities`, each read by its own pump
 * into one sink, each served event delivered with the whole composite cursor after it. Cities that attach
 * while the feed runs join it (from the cursor's position, else from seq 0); cities that detach stop being
 * read but keep their pair in the cursor, so a later resume is exact. An event that is not served is not
 * delivered but still advances its log's pair, so the next cursor is past it and no resume ever brings it
 * back (nor skips a served one). A failing log is reported and retried with backoff while the others flow.
 *
 * Effects: subscribes to journals and to `cities.onChange`; `close()` releases every subscription, timer and
 * listener.
 */
export class SupervisorFeed {
  readonly #cities: LiveLogs;
  readonly #sink: SupervisorFeedSink;
  readonly #tracker: CursorTracker;
  readonly #pumps = new Map<string, Pump>();
  readonly #served: EventFilter;
  readonly #onError: (log: string, err: unknown) => void;
  readonly #retryMin: number;
  readonly #retryMax: number;
  readonly #pendingHeads: Set<string>;
  #unlisten: (() => void) | undefined;
  #closed = false;

  constructor(options: SupervisorFeedOptions, sink: SupervisorFeedSink) {
    this.#cities = options.cities;
    this.#sink = sink;
    this.#tracker = new CursorTracker(options.start);
    this.#pendingHeads = new Set(options.pendingHeads);
    this.#served = options.served ?? (() => true);
    this.#onError = options.onError ?? (() => {});
    this.#retryMin = options.retryMinMs ?? 250;
    this.#retryMax = options.retryMaxMs ?? 10_000;
  }

  /** Starts reading every log now attached and follows attach/detach from then on. */
  start(): void {
    if (this.#closed || this.#unlisten) return;
    this.#unlisten = this.#cities.onChange(() => this.#reconcile());
    this.#reconcile();
  }

  /** Names of the logs being read now (tests use it to watch attach and detach). */
  get watching(): string[] {
    return [...this.#pumps.keys()];
  }

  /** The composite cursor of everything delivered (or skipped as not served) so far. */
  get cursor(): CompositeCursor {
    return this.#tracker.format();
  }

  /** Stops every pump and listener. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unlisten?.();
    for (const pump of this.#pumps.values()) this.#stop(pump);
    this.#pumps.clear();
  }

  /** Brings the pumps in line with the cities: start new logs, restart replaced ones, stop departed ones. */
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

  /** Reads one log into the sink until stopped; a failure is reported and retried with backoff. */
  async #run(name: string, pump: Pump): Promise<void> {
    let delay = this.#retryMin;
    while (!pump.stopped) {
      let sub: Subscription | undefined;
      try {
        if (!this.#tracker.has(name)) {
          // A head start this log could not give at connect time: until now it was absent from the cursor.
          const head = await pump.journal.head();
          if (pump.stopped) return;
          this.#tracker.set(name, head);
          this.#pendingHeads.delete(name);
        }
        sub = pump.journal.subscribe(this.#tracker.get(name) ?? 0);
        pump.sub = sub;
        for await (const event of sub) {
          // A retried subscription may overlap what was already delivered; the cursor says what that was.
          if (event.seq <= (this.#tracker.get(name) ?? 0)) continue;
          if (!this.#served(name, event)) {
            if (pump.stopped) break;
            this.#tracker.set(name, event.seq);
            continue;
          }
          await this.#sink.ready();
          if (pump.stopped) break;
          this.#tracker.set(name, event.seq);
          this.#sink.deliver(name, event, this.#tracker.format(), pump.journal);
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
