import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { isSeqConflict, partlyStored, UnavailableError } from '../errors.ts';
import type { Journal, JournalEvent, Subscription } from '../journal/journal.ts';
import type { BeadCommand, ResultOf } from '../../machines/beads/commands.ts';
import { decide } from '../../machines/beads/decide.ts';
import { evolve } from '../../machines/beads/evolve.ts';
import { foldingReported } from '../damagedRecords.ts';
import type { BeadModel } from '../../machines/beads/model.ts';
import { rejectionError } from './rejections.ts';
import { backoffMs, type RetryPolicy } from './retryPolicy.ts';
import { captureSnapshot, writeSnapshot, type SnapshotAnchor } from './snapshot.ts';

/** When a runner writes snapshots of its model (see `snapshot.ts`). */
export interface SnapshotPolicy {
  file: string;
  /** Write one in the background after this many events were folded since the last. */
  every: number;
  /** At stop, write one if at least this many events were folded since the last. */
  min: number;
}

/** What a runner needs besides its journal and model. */
export interface RunnerOptions {
  clock: () => Date;
  retry: RetryPolicy;
  /** Events read per `list` call while folding. */
  pageSize: number;
  /** Told when following the journal or writing a snapshot fails (both are retried later). */
  onError: (err: unknown) => void;
  /** Snapshots to write; none when absent. */
  snapshot?: SnapshotPolicy;
  /** The event the model was restored after (a snapshot's), so the next snapshot can anchor on it. */
  anchor?: SnapshotAnchor;
}

/** How the model was built at start-up: restored from a snapshot at `snapshotSeq`, then `replayed` events. */
export interface StartupStats {
  snapshotSeq: number | undefined;
  replayed: number;
  ms: number;
}

interface Waiter {
  index: number;
  done(reached: boolean): void;
}

/**
 * The bead store's actor runtime: the only writer of its model.
 *
 * - Commands run one at a time: decide on the model (pure), append the state event with
 *   `expectedSeq` = the seq the decision was taken at, and only once it is durable fold it into the model;
 *   notices follow unfenced. A `SeqConflictError` (someone else appended first) folds the missed events
 *   and decides again, under {@link RetryPolicy}.
 * - A journal subscription folds every other event as it lands (other families' events advance the
 *   city's index; other writers' bead events change beads). Folding is by seq, exactly once: an event
 *   at or below the model's seq is skipped, a gap is filled by reading the journal first.
 * - Blocking reads wait here until the model's seq passes an index.
 */
export class BeadCommandRunner {
  #tail: Promise<unknown> = Promise.resolve();
  readonly #waiters = new Set<Waiter>();
  #subscription: Subscription | undefined;
  #following: Promise<void> | undefined;
  #reading: Promise<void> | undefined;
  #stopped = false;
  #started = false;
  #anchor: SnapshotAnchor | undefined;
  #sinceSnapshot = 0;
  #writing: Promise<void> | undefined;
  /** Filled by `start`. */
  readonly startup: StartupStats = { snapshotSeq: undefined, replayed: 0, ms: 0 };

  constructor(
    readonly journal: Journal,
    readonly model: BeadModel,
    private readonly options: RunnerOptions,
  ) {}

  /**
   * Folds the log from the model's seq (all of it, unless the model was restored from a snapshot), then
   * follows it. Effects: reads the journal from the model's seq to its head.
   * @throws UnavailableError when the journal cannot be read.
   */
  async start(): Promise<void> {
    const started = performance.now();
    this.#anchor = this.options.anchor;
    if (this.options.anchor) this.startup.snapshotSeq = this.model.seq;
    const from = this.model.seq;
    await this.catchUp();
    this.startup.replayed = this.model.seq - from;
    this.startup.ms = Math.round(performance.now() - started);
    this.#started = true;
    this.#following = this.#follow();
    this.#maybeSnapshot();
  }

  /**
   * Queues `command` behind the ones already queued and resolves with its result once its events are
   * durable and folded.
   * @throws the catalogue error of a refusal (404, 409, 400, 422); SeqConflictError when the retries are
   *   spent; UnavailableError when the journal cannot append or the runner is stopped (nothing stored);
   *   OutcomeUnknownError when the journal cannot tell whether an event was stored, or only part of
   *   the command's events were.
   */
  run<C extends BeadCommand>(command: C, actor: string): Promise<ResultOf<C>> {
    if (this.#stopped) return Promise.reject(new UnavailableError('bead store is stopped'));
    const task = this.#tail.then(() => this.#execute(command, actor));
    this.#tail = task.catch(() => undefined);
    return task;
  }

  async #execute<C extends BeadCommand>(command: C, actor: string): Promise<ResultOf<C>> {
    for (let attempt = 0; ; attempt++) {
      const outcome = decide(this.model, command, { actor, now: this.options.clock().toISOString() });
      if (!outcome.ok) throw rejectionError(outcome.rejection);
      const { event, notices, result } = outcome.decision;
      if (event) {
        let stored: JournalEvent;
        try {
          stored = await this.journal.append(event, { expectedSeq: this.model.seq });
        } catch (err) {
          if (!isSeqConflict(err) || attempt >= this.options.retry.retries) throw err;
          await this.catchUp();
          await sleep(backoffMs(this.options.retry, attempt));
          continue;
        }
        await this.#acceptStored(stored);
      }
      for (const [i, notice] of notices.entries()) {
        try {
          await this.#acceptStored(await this.journal.append(notice));
        } catch (err) {
          // Part of the write is stored: "refused" would be a lie, and a retry would do it twice.
          if (event || i > 0) throw partlyStored(this.journal.name, err);
          throw err;
        }
      }
      return result;
    }
  }

  /**
   * Folds an event this runner appended. Its command succeeded once the append did: a failure to read
   * the events before it only delays the fold (the subscription, or the next command's catch-up, does
   * it), so it is reported, not thrown.
   */
  async #acceptStored(event: JournalEvent): Promise<void> {
    try {
      await this.#accept(event);
    } catch (err) {
      this.options.onError(err);
    }
  }

  /** Folds an event, reading any events before it that this runner has not seen yet. */
  async #accept(event: JournalEvent): Promise<void> {
    if (event.seq > this.model.seq + 1) await this.catchUp();
    this.#apply(event);
  }

  /** Folds `event` if it is the next one; earlier ones were folded already. */
  #apply(event: JournalEvent): void {
    if (event.seq !== this.model.seq + 1) return;
    // A damaged record stops the fold here (logged, thrown): the model never runs past it.
    foldingReported(() => evolve(this.model, event, this.journal.name));
    this.#anchor = { seq: event.seq, type: event.type, ts: event.ts };
    this.#sinceSnapshot++;
    if (this.#started && this.#sinceSnapshot >= (this.options.snapshot?.every ?? Infinity))
      this.#maybeSnapshot();
    if (this.#waiters.size === 0) return;
    for (const waiter of this.#waiters) if (this.model.seq > waiter.index) waiter.done(true);
  }

  /**
   * Folds every event after the model's seq that the journal has now. Concurrent callers share one
   * read. Effects: pages through `journal.list`.
   */
  async catchUp(): Promise<void> {
    while (this.#reading) await this.#reading;
    const reading = this.#readForward();
    this.#reading = reading;
    try {
      await reading;
    } finally {
      this.#reading = undefined;
    }
  }

  async #readForward(): Promise<void> {
    for (;;) {
      const page = await this.journal.list({ afterSeq: this.model.seq, limit: this.options.pageSize });
      if (page.length === 0) return;
      for (const event of page) this.#apply(event);
    }
  }

  async #follow(): Promise<void> {
    while (!this.#stopped) {
      const subscription = this.journal.subscribe(this.model.seq);
      this.#subscription = subscription;
      try {
        for await (const event of subscription) await this.#accept(event);
        return; // the journal or this runner closed it
      } catch (err) {
        if (this.#stopped) return;
        this.options.onError(err);
        await subscription.close().catch(() => undefined);
        await sleep(1000);
      }
    }
  }

  /**
   * Resolves true once the model's seq is above `index`, false after `timeoutMs`, on `signal`'s abort
   * or when the runner stops.
   */
  waitForIndex(index: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.model.seq > index) return Promise.resolve(true);
    if (this.#stopped || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const abort = () => waiter.done(false);
      const timer = setTimeout(abort, timeoutMs);
      const waiter: Waiter = {
        index,
        done: (reached) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', abort);
          this.#waiters.delete(waiter);
          resolve(reached);
        },
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /** Writes a snapshot in the background when enough events were folded since the last one. */
  #maybeSnapshot(): void {
    const policy = this.options.snapshot;
    if (!policy || this.#writing || this.#sinceSnapshot < policy.every) return;
    this.#writing = this.#writeSnapshot(policy).finally(() => (this.#writing = undefined));
  }

  async #writeSnapshot(policy: SnapshotPolicy): Promise<void> {
    const image = captureSnapshot(this.journal.name, this.model, this.#anchor);
    const folded = this.#sinceSnapshot;
    this.#sinceSnapshot = 0;
    try {
      await writeSnapshot(policy.file, image);
    } catch (err) {
      this.#sinceSnapshot += folded;
      this.options.onError(err);
    }
  }

  /**
   * Stops following the journal, lets queued commands finish, releases every waiter, and writes a last
   * snapshot when the policy asks for one. Idempotent.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const waiter of this.#waiters) waiter.done(false);
    await this.#subscription?.close().catch(() => undefined);
    await this.#following;
    await this.#tail;
    await this.#writing;
    const policy = this.options.snapshot;
    if (policy && this.#sinceSnapshot > 0 && this.#sinceSnapshot >= policy.min)
      await this.#writeSnapshot(policy);
  }
}
