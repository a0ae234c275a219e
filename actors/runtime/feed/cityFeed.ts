import type { Journal, JournalEvent, Subscription } from '../journal/journal.ts';
import { closeQuietly } from './closeQuietly.ts';

/** Where a city feed hands its events; it awaits `ready()` before each, so a slow consumer holds the log. */
export interface CityFeedSink {
  /** Resolves when the sink has room; undefined when it has room now (no turn of the microtask queue). */
  ready(): Promise<void> | undefined;
  /** One served event; its seq is the position a resume continues after. */
  deliver(event: JournalEvent): void;
}

export interface CityFeedOptions {
  /** Events it refuses are not delivered; the next delivered seq is past them, so a resume skips them too. */
  keep?: (event: JournalEvent) => boolean;
  /** Told when the log's subscription fails (not when the feed was closed); the feed then ends. */
  onError?: (err: unknown) => void;
  /**
   * Asked after each event (delivered or refused) with the feed's position; true: another reader takes over
   * from there (a live fan-out), so `run()` stops and resolves `handed_off`.
   */
  handOff?: (position: number) => boolean;
}

/** How `run()` ended: handed off to another reader, or done (closed, the log ended or failed). */
export type CityFeedOutcome = 'handed_off' | 'done';

/**
 * One city log from after `afterSeq`, delivered into a sink until the feed is closed or the log ends or
 * fails. Unlike the supervisor feed it does not retry: a city stream's client reconnects with its seq.
 *
 * Effects: holds one journal subscription, released by `close()` and before `run()` settles.
 */
export class CityFeed {
  readonly #journal: Journal;
  readonly #afterSeq: number;
  readonly #keep: (event: JournalEvent) => boolean;
  readonly #onError: (err: unknown) => void;
  readonly #handOff: (position: number) => boolean;
  #position: number;
  #sub: Subscription | undefined;
  #closed = false;

  constructor(journal: Journal, afterSeq: number, options: CityFeedOptions = {}) {
    this.#journal = journal;
    this.#afterSeq = afterSeq;
    this.#keep = options.keep ?? (() => true);
    this.#onError = options.onError ?? (() => {});
    this.#handOff = options.handOff ?? (() => false);
    this.#position = afterSeq;
  }

  /** The seq of the last event read (delivered or refused): where a resume or a hand-off continues after. */
  get position(): number {
    return this.#position;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Delivers into `sink` until closed, handed off, or the log ends or fails. Never throws. */
  async run(sink: CityFeedSink): Promise<CityFeedOutcome> {
    if (this.#closed) return 'done';
    try {
      // Only read (rendered into frames): many streams of one log may share each decoded event.
      this.#sub = this.#journal.subscribe(this.#afterSeq, { readOnly: true });
      for await (const event of this.#sub) {
        if (this.#keep(event)) {
          const room = sink.ready();
          if (room) await room;
          if (this.#closed) break;
          sink.deliver(event);
        }
        this.#position = event.seq;
        if (this.#handOff(event.seq)) return 'handed_off';
      }
    } catch (err) {
      if (!this.#closed) this.#onError(err);
    } finally {
      const sub = this.#sub;
      this.#sub = undefined;
      if (sub) await closeQuietly(sub);
    }
    return 'done';
  }

  /** Stops the feed: its subscription is released and `run()` settles. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#sub) void closeQuietly(this.#sub);
  }
}
