import type { Journal, JournalEvent } from '../journal/journal.ts';
import { CityFeed } from './cityFeed.ts';
import type { FanoutMember, FanoutRelease, LiveFanout } from './liveFanout.ts';

/** Where a follower hands what it reads: the kept events after its position, and the position after them. */
export type FollowerSink = (events: readonly JournalEvent[], to: number) => void;

export interface LogFollowerOptions {
  /** The log's live fan-out (the one its city streams share), and the filter it applies. */
  fanout: () => LiveFanout;
  keep: (event: JournalEvent) => boolean;
  /** Told when the log fails; the follower retries after a backoff. */
  onError?: (err: unknown) => void;
  retryMinMs?: number;
  retryMaxMs?: number;
}

/**
 * One log followed for a merged tail from a position, at the pace of the log (never held by a reader): a
 * member of the log's live fan-out, so it costs no subscription of its own at the live edge, reading the
 * log by itself (a CityFeed) only while the fan-out is ahead of it. A failure is reported and retried with
 * backoff; the log ending (its journal closed) stops it.
 *
 * Effects: a fan-out membership or one read-only subscription, released by `stop()`.
 */
export class LogFollower {
  readonly #journal: Journal;
  readonly #options: LogFollowerOptions;
  readonly #sink: FollowerSink;
  #position: number;
  #stopped = false;
  #feed: CityFeed | undefined;
  #fanout: LiveFanout | undefined;
  #member: FanoutMember | undefined;
  #wake: (() => void) | undefined;
  #released: ((release: FanoutRelease) => void) | undefined;

  constructor(journal: Journal, from: number, options: LogFollowerOptions, sink: FollowerSink) {
    this.#journal = journal;
    this.#position = from;
    this.#options = options;
    this.#sink = sink;
  }

  get journal(): Journal {
    return this.#journal;
  }

  /** The seq of the last event handed on (kept or not). */
  get position(): number {
    return this.#position;
  }

  start(): void {
    void this.#run();
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#feed?.close();
    if (this.#member) this.#fanout?.leave(this.#member);
    this.#released?.({ why: 'ended' });
    this.#wake?.();
  }

  async #run(): Promise<void> {
    let delay = this.#options.retryMinMs ?? 250;
    const max = this.#options.retryMaxMs ?? 10_000;
    while (!this.#stopped) {
      const outcome = await this.#followOnce();
      if (outcome === 'ended' || this.#stopped) return;
      if (outcome === 'ok') {
        delay = this.#options.retryMinMs ?? 250;
        continue;
      }
      this.#options.onError?.(outcome.err);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
      delay = Math.min(delay * 2, max);
    }
  }

  /** Joins the fan-out (reading alone first while it is ahead); resolves when released from it. */
  async #followOnce(): Promise<'ok' | 'ended' | { err: unknown }> {
    const fanout = this.#options.fanout();
    this.#fanout = fanout;
    let released!: (release: FanoutRelease) => void;
    const joined = new Promise<FanoutRelease>((resolve) => (released = resolve));
    this.#released = released;
    const member: FanoutMember = {
      position: this.#position,
      hasRoom: () => true,
      take: (batch) => {
        if (this.#stopped) return true;
        const events =
          batch.after >= member.position ? batch.events : batch.events.filter((e) => e.seq > member.position);
        this.#position = batch.to;
        this.#sink(events, batch.to);
        return true;
      },
      release: (release) => released(release),
    };
    this.#member = member;
    if (!fanout.attach(member)) {
      let failure: unknown;
      let failed = false;
      const feed = new CityFeed(this.#journal, this.#position, {
        keep: this.#options.keep,
        onError: (err) => {
          failed = true;
          failure = err;
        },
        handOff: (position) => {
          // Refused events move the position too (a cause may be one): the merge hears of it at once.
          if (position > this.#position) {
            this.#position = position;
            this.#sink([], position);
          }
          member.position = position;
          return fanout.attach(member);
        },
      });
      this.#feed = feed;
      const outcome = await feed.run({
        ready: () => undefined,
        deliver: (event) => {
          this.#position = event.seq;
          this.#sink([event], event.seq);
        },
      });
      this.#feed = undefined;
      if (this.#stopped) return 'ended';
      if (outcome === 'done') return failed ? { err: failure } : 'ended';
    }
    const release = await joined;
    if (release.why === 'ended') return 'ended';
    if (release.why === 'failed') return { err: release.err };
    return 'ok';
  }
}
