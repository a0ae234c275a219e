import { performance } from 'node:perf_hooks';
import type { Journal, JournalEvent, Subscription } from '../journal/journal.ts';
import { closeQuietly } from './closeQuietly.ts';

/** The events of one log that became ready in one turn: every position after `after` up to `to`. */
export interface FanoutBatch {
  /** The position the batch continues after. */
  readonly after: number;
  /** The seq of its last event (kept or not): every member that took it is at this position. */
  readonly to: number;
  /** The events `keep` accepted, ascending (maybe none). */
  readonly events: readonly JournalEvent[];
}

/** Why a member no longer takes batches. */
export type FanoutRelease = { why: 'behind' } | { why: 'ended' } | { why: 'failed'; err: unknown };

/** One reader of a live fan-out (a stream at the log's live edge). */
export interface FanoutMember {
  /** The seq of the last event it was handed or passed; the fan-out moves it to each batch's `to`. */
  position: number;
  /** Whether it can take a batch now without buffering past its bound. */
  hasRoom(): boolean;
  /**
   * The batch's events after `position` (all of them when `position` is the batch's `after`); false: it
   * cannot take them now (too large for its bound), and is released `behind` to read them by itself.
   */
  take(batch: FanoutBatch): boolean;
  /** It is no longer attached: `behind` (no room, or not at a batch's start) reads on by itself from
   * `position`; `ended`/`failed`: the log ended or failed. Called once per attach. */
  release(release: FanoutRelease): void;
}

/** Events a batch holds at most before it is handed out within the turn (bounds one write). */
const MAX_BATCH = 256;
/** The longest the fan-out reads before it lets the event loop turn (I/O, timers). */
const SLICE_MS = 10;

/**
 * One live subscription of a log shared by every stream at its live edge: the events that become ready in
 * one turn (a group commit's batch) are handed to every attached member as ONE batch, in one synchronous
 * pass (no promise, iterator or timer per member or per event), so a caller can encode them once for all.
 * A member joins only when the fan-out is not ahead of it (`attach`, synchronous: nothing slips between the
 * check and the join); one that lags (no room, or a batch it cannot continue) is released `behind` and reads
 * on by itself, so a slow reader never holds the others or grows memory here, and joins again once it is
 * not behind. The subscription starts with the first stream and runs until the last one leaves (attached
 * or reading by itself: a lagging stream needs a running fan-out to rejoin).
 *
 * Effects: holds one read-only journal subscription while it has streams.
 */
export class LiveFanout {
  readonly #journal: Journal;
  readonly #keep: (event: JournalEvent) => boolean;
  readonly #members = new Set<FanoutMember>();
  /** Every stream that attached once and has not left: the members and those reading by themselves. */
  readonly #streams = new Set<FanoutMember>();
  #sub: Subscription | undefined;
  /** The seq of the last event read (handed out or pending); -1 while not subscribed. */
  #pos = -1;
  /** The position the pending batch continues after. */
  #after = -1;
  #pending: JournalEvent[] = [];
  #flushQueued = false;

  constructor(journal: Journal, keep: (event: JournalEvent) => boolean) {
    this.#journal = journal;
    this.#keep = keep;
  }

  /** The seq of the last event read, or -1 when not subscribed. */
  get position(): number {
    return this.#pos;
  }

  get size(): number {
    return this.#members.size;
  }

  /**
   * Attaches `member` when the fan-out is not ahead of its position (starting the subscription there when
   * it has none); false: it must read on by itself first. A member ahead of the fan-out is handed only what
   * comes after its position.
   */
  attach(member: FanoutMember): boolean {
    this.#streams.add(member);
    if (!this.#sub) this.#start(member.position);
    if (this.#pos > member.position) return false;
    this.#members.add(member);
    return true;
  }

  /** `member`'s stream is gone (not told); the subscription goes with the last stream. */
  leave(member: FanoutMember): void {
    this.#members.delete(member);
    if (this.#streams.delete(member) && this.#streams.size === 0) this.#stop();
  }

  #start(from: number): void {
    const sub = this.#journal.subscribe(from, { readOnly: true });
    this.#sub = sub;
    this.#pos = from;
    this.#after = from;
    void this.#pump(sub);
  }

  #stop(): void {
    const sub = this.#sub;
    this.#sub = undefined;
    this.#pos = -1;
    this.#pending = [];
    if (sub) void closeQuietly(sub);
  }

  async #pump(sub: Subscription): Promise<void> {
    let release: FanoutRelease = { why: 'ended' };
    try {
      let slice = performance.now();
      for await (const event of sub) {
        if (this.#sub !== sub) return;
        this.#pos = event.seq;
        if (this.#keep(event)) this.#pending.push(event);
        if (this.#pending.length >= MAX_BATCH) this.#flush();
        else if (!this.#flushQueued) {
          // Everything the log hands over in this turn of microtasks joins the batch.
          this.#flushQueued = true;
          process.nextTick(() => {
            this.#flushQueued = false;
            if (this.#sub === sub) this.#flush();
          });
        }
        // A long catch-up through the fan-out must not starve sockets and timers.
        if (performance.now() - slice > SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          slice = performance.now();
        }
      }
    } catch (err) {
      release = { why: 'failed', err };
    }
    if (this.#sub !== sub) return;
    // The log ended or failed: what was read goes out first, then every member is told.
    this.#flush();
    const members = [...this.#members];
    this.#members.clear();
    this.#stop();
    for (const member of members) member.release(release);
  }

  /** Hands the pending batch to every member, in one pass. */
  #flush(): void {
    if (this.#pos === this.#after) return;
    const batch: FanoutBatch = { after: this.#after, to: this.#pos, events: this.#pending };
    this.#after = this.#pos;
    this.#pending = [];
    for (const member of this.#members) {
      if (member.position >= batch.to) continue;
      if (member.position < batch.after || !member.hasRoom() || !member.take(batch)) {
        this.#members.delete(member);
        member.release({ why: 'behind' });
        continue;
      }
      member.position = batch.to;
    }
  }
}
