import type { CompositeCursor } from '../../../schemas/compositeCursor.ts';
import { SUPERVISOR_LOG, type Journal, type JournalEvent } from '../journal/journal.ts';
import { causesMet, causesOf } from './causes.ts';
import { CursorTracker } from './cursorTracker.ts';
import type { LiveFanout } from './liveFanout.ts';
import { LogFollower } from './logFollower.ts';
import type { FeedStart } from './supervisorFeed.ts';
import type { LiveLogs } from './supervisorFeed.ts';

/** One event of the merged tail, with the whole composite cursor after it. */
export interface MergedItem {
  readonly log: string;
  readonly event: JournalEvent;
  readonly journal: Journal;
  readonly cursor: CompositeCursor;
}

/** The events merged in one turn, in delivery order (maybe none: then only the cursor moved). */
export interface MergedBatch {
  readonly items: readonly MergedItem[];
}

/** A subscriber at the tail's position: a bounded buffer (its stream) and nothing else. */
export interface TailMember {
  hasRoom(): boolean;
  /** Takes a batch; false: it has no room for it, and is released to read on by itself. */
  take(batch: MergedBatch): boolean;
  /** No longer attached: it continues by itself after `cursor` (it took everything up to there). */
  release(cursor: CompositeCursor): void;
}

/** A subscriber reading by itself that joins again once its cursor is the tail's. */
export interface TailWatcher {
  cursor(): CompositeCursor;
  /** Its cursor is the tail's now: stop reading alone and attach (synchronously). */
  rejoin(): void;
}

export interface MergedTailOptions {
  cities: LiveLogs;
  /** The live fan-out of a log (its city streams' own), filtered by `keep`. */
  fanout(journal: Journal, keep: (event: JournalEvent) => boolean): LiveFanout;
  /** Which events of `log` are delivered; the others still move the cursor. */
  keep(log: string, event: JournalEvent): boolean;
  onError?: (log: string, err: unknown) => void;
}

/**
 * The one merged tail of a supervisor's logs that every supervisor stream at the live edge shares: each log
 * is followed once (through the fan-out its city streams use, so JetStream holds one consumer per log
 * whatever the number of streams), the events of a turn are merged into ONE batch with the composite cursor
 * after each, and every attached member is handed that same batch (rendered once for all of them by the
 * caller). A member is a bounded buffer: one without room is released with the cursor it reached and reads
 * on by itself, rejoining when its cursor is the tail's again.
 *
 * Causal order: a supervisor event that records the heads of city logs it follows from (a request's
 * terminal event, causes.ts) is held, and the supervisor log with it, until those heads are delivered.
 *
 * Effects: follows every log of `cities` while it has members or watchers; listens to `cities`.
 */
export class MergedTail {
  readonly #options: MergedTailOptions;
  readonly #followers = new Map<string, LogFollower>();
  readonly #members = new Set<TailMember>();
  readonly #watchers = new Set<TailWatcher>();
  #tracker = new CursorTracker();
  /** Supervisor events read but not delivered: the head one waits for its causes. */
  #held: JournalEvent[] = [];
  /** The supervisor log's position once everything held is delivered. */
  #supervisorTo = 0;
  #pendingHeads = new Set<string>();
  #unlisten: (() => void) | undefined;
  #cursor: CompositeCursor | undefined;
  /** Bumped by every start: a head read of an earlier run must not start a follower in this one. */
  #run = 0;
  /**
   * The items read in this turn of the event loop, handed out together when it ends: with many logs each
   * event would otherwise be its own batch, one write per member per event (issue 33's 100 cities).
   */
  #pending: MergedItem[] = [];
  /** While a hand-out is scheduled: the cursor members have (the one `attach` and `release` use). */
  #handed: CompositeCursor | undefined;

  constructor(options: MergedTailOptions) {
    this.#options = options;
  }

  get running(): boolean {
    return this.#unlisten !== undefined;
  }

  /** The composite cursor of everything the tail delivered. */
  get cursor(): CompositeCursor {
    return this.#handed ?? this.#position();
  }

  /** Where the tail has read to, the items not yet handed out included. */
  #position(): CompositeCursor {
    return (this.#cursor ??= this.#tracker.format());
  }

  /** Logs being followed now (tests watch attach and detach through it). */
  get watching(): string[] {
    return [...this.#followers.keys()];
  }

  get size(): number {
    return this.#members.size;
  }

  /** Starts following every log from `start` (a log absent from it: from its beginning). No-op if running. */
  start(start: FeedStart): void {
    if (this.running) return;
    this.#run++;
    this.#tracker = new CursorTracker(start.start);
    this.#cursor = undefined;
    this.#pendingHeads = new Set(start.pendingHeads);
    this.#held = [];
    this.#pending = [];
    this.#handed = undefined;
    this.#supervisorTo = start.start.get(SUPERVISOR_LOG) ?? 0;
    this.#unlisten = this.#options.cities.onChange(() => this.#reconcile());
    this.#reconcile();
  }

  /** Attaches `member` when `cursor` is the tail's (absent: it starts wherever the tail is). */
  attach(member: TailMember, cursor?: CompositeCursor): boolean {
    if (!this.running) return false;
    if (cursor !== undefined && cursor !== this.cursor) return false;
    this.#members.add(member);
    return true;
  }

  leave(member: TailMember): void {
    this.#members.delete(member);
    this.#stopWhenIdle();
  }

  watch(watcher: TailWatcher): void {
    this.#watchers.add(watcher);
  }

  unwatch(watcher: TailWatcher): void {
    this.#watchers.delete(watcher);
    this.#stopWhenIdle();
  }

  #stopWhenIdle(): void {
    if (this.#members.size > 0 || this.#watchers.size > 0 || !this.#unlisten) return;
    this.#unlisten();
    this.#unlisten = undefined;
    for (const follower of this.#followers.values()) follower.stop();
    this.#followers.clear();
  }

  #reconcile(): void {
    const logs = this.#options.cities.logs();
    for (const [name, journal] of logs) {
      const follower = this.#followers.get(name);
      if (follower?.journal === journal) continue;
      follower?.stop();
      this.#followers.delete(name);
      if (!this.#tracker.has(name) && !this.#pendingHeads.has(name)) this.#tracker.set(name, 0);
      void this.#follow(name, journal);
    }
    for (const [name, follower] of this.#followers) {
      if (logs.has(name)) continue;
      follower.stop();
      this.#followers.delete(name);
    }
    // A departed log's causes can no longer come: what waited on them goes now.
    this.#deliver(() => {});
  }

  async #follow(name: string, journal: Journal): Promise<void> {
    const run = this.#run;
    if (!this.#tracker.has(name)) {
      // A head start this log could not give: it joins at its head once it can read it.
      const head = await journal.head().catch((err: unknown) => {
        this.#options.onError?.(name, err);
        return undefined;
      });
      if (this.#run !== run || !this.running || this.#options.cities.logs().get(name) !== journal) return;
      if (head === undefined) {
        setTimeout(() => void this.#follow(name, journal), 250).unref();
        return;
      }
      this.#tracker.set(name, head);
      if (name === SUPERVISOR_LOG) this.#supervisorTo = head;
      this.#cursor = undefined;
      this.#pendingHeads.delete(name);
    }
    const keep = (event: JournalEvent): boolean => this.#options.keep(name, event);
    const follower = new LogFollower(
      journal,
      name === SUPERVISOR_LOG ? this.#supervisorTo : this.#tracker.get(name)!,
      {
        fanout: () => this.#options.fanout(journal, keep),
        keep,
        onError: (err) => this.#options.onError?.(name, err),
      },
      (events, to) => this.#deliver((emit) => this.#arrived(name, journal, events, to, emit)),
    );
    this.#followers.set(name, follower);
    follower.start();
  }

  /** Events of `log` arrived: a city's go out at once, the supervisor's join the held queue. */
  #arrived(
    log: string,
    journal: Journal,
    events: readonly JournalEvent[],
    to: number,
    emit: (log: string, journal: Journal, event: JournalEvent) => void,
  ): void {
    if (log === SUPERVISOR_LOG) {
      for (const event of events) this.#held.push(event);
      this.#supervisorTo = Math.max(this.#supervisorTo, to);
      return;
    }
    for (const event of events) emit(log, journal, event);
    this.#tracker.set(log, to);
    this.#cursor = undefined;
  }

  /** Runs `arrive` and releases what no longer waits; the turn's items are handed out when it ends. */
  #deliver(arrive: (emit: (log: string, journal: Journal, event: JournalEvent) => void) => void): void {
    const before = this.#position();
    const emit = (log: string, journal: Journal, event: JournalEvent): void => {
      this.#tracker.set(log, event.seq);
      this.#cursor = undefined;
      this.#pending.push({ log, event, journal, cursor: this.#position() });
    };
    arrive(emit);
    this.#releaseHeld(emit);
    if (this.#handed !== undefined || this.#position() === before) return;
    this.#handed = before;
    setImmediate(() => this.#handOut());
  }

  /** Hands the turn's items to every member as one batch, then lets caught-up watchers rejoin. */
  #handOut(): void {
    const before = this.#handed!;
    const items = this.#pending;
    this.#pending = [];
    this.#handed = undefined;
    if (items.length > 0) {
      const batch: MergedBatch = { items };
      for (const member of this.#members) {
        if (member.hasRoom() && member.take(batch)) continue;
        this.#members.delete(member);
        member.release(before);
      }
    }
    if (this.#watchers.size > 0) {
      const now = this.cursor;
      for (const watcher of [...this.#watchers]) if (watcher.cursor() === now) watcher.rejoin();
    }
  }

  #releaseHeld(emit: (log: string, journal: Journal, event: JournalEvent) => void): void {
    const journal = this.#options.cities.supervisorLog;
    const position = (log: string): number | undefined =>
      this.#followers.has(log) ? (this.#tracker.get(log) ?? 0) : undefined;
    while (this.#held.length > 0) {
      const next = this.#held[0]!;
      const causes = causesOf(SUPERVISOR_LOG, next);
      if (causes && !causesMet(causes, position)) return;
      this.#held.shift();
      emit(SUPERVISOR_LOG, journal, next);
    }
    if (this.#supervisorTo > (this.#tracker.get(SUPERVISOR_LOG) ?? 0)) {
      this.#tracker.set(SUPERVISOR_LOG, this.#supervisorTo);
      this.#cursor = undefined;
    }
  }
}
