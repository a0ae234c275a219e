import { performance } from 'node:perf_hooks';
import { UnavailableError } from '../runtime/errors.ts';
import type { Journal, JournalEvent } from '../runtime/journal/journal.ts';
import type { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import type { LogFolder } from '../runtime/logRuntime/decision.ts';
import type { BeadCommand, ResultOf } from '../../machines/beads/commands.ts';
import { decide } from '../../machines/beads/decide.ts';
import { evolve, evolveUndoable } from '../../machines/beads/evolve.ts';
import { recordOf } from '../../machines/recorded.ts';
import { foldingReported } from '../runtime/damagedRecords.ts';
import type { BeadModel } from '../../machines/beads/model.ts';
import type { Outcome } from '../../machines/beads/decision.ts';
import type { EventContext } from '../../machines/beads/events.ts';
import { rejectionError } from './rejections.ts';
import { canReplay, replayLog } from './replay.ts';
import { captureSnapshot, writeSnapshot, type SnapshotAnchor } from './snapshot.ts';

/** When a runner writes snapshots of its model (see `snapshot.ts`). */
export interface SnapshotPolicy {
  file: string;
  /** Write one in the background after this many events were folded since the last. */
  every: number;
  /** At stop, write one if at least this many events were folded since the last. */
  min: number;
}

/** What a runner needs besides its log and model. */
export interface RunnerOptions {
  clock: () => Date;
  /** Told when writing a snapshot fails (retried later). */
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
 * The beads family on its city's log runtime: a decider (`decide`, pure) and a read model folded by
 * `evolve`. A command is decided against the model at the runtime's head; its state event and notices are
 * appended as one batch (fenced, retried by the runtime's one policy on a conflict), so a change never
 * lands without its notice. The runtime hands the model every event of the log exactly once, in order:
 * its own, other families', other writers'. Blocking reads wait here until the model passes an index.
 */
export class BeadCommandRunner {
  readonly #waiters = new Set<Waiter>();
  readonly #folder: LogFolder = { fold: (events) => this.#fold(events) };
  #stopped = false;
  #started = false;
  /** The last seq that is durable and folded (the model may run ahead by a round being written). */
  #durable = 0;
  /** Round members applied to the model and not yet durable or undone: no snapshot is taken then. */
  #speculating = 0;
  #anchor: SnapshotAnchor | undefined;
  #sinceSnapshot = 0;
  #writing: Promise<void> | undefined;
  /** Filled by `start`. */
  readonly startup: StartupStats = { snapshotSeq: undefined, replayed: 0, ms: 0 };

  constructor(
    readonly log: LogRuntime,
    readonly model: BeadModel,
    private readonly options: RunnerOptions,
  ) {}

  get journal(): Journal {
    return this.log.journal;
  }

  /** The city event index of durable state (`X-GC-Index`); the model may be ahead by a round in flight. */
  get index(): number {
    return this.#durable;
  }

  /**
   * Attaches the model to the log at its seq (the whole log, unless restored from a snapshot): the runtime
   * folds what it missed, then every later event. Effects: reads the log from the model's seq.
   * @throws UnavailableError when the log cannot be read; DamagedRecordError at a damaged bead record.
   */
  async start(): Promise<void> {
    const started = performance.now();
    this.#anchor = this.options.anchor;
    if (this.options.anchor) this.startup.snapshotSeq = this.model.seq;
    const from = this.model.seq;
    // A whole log in a file is replayed in two passes (see BeadReplay); the runtime folds the rest.
    if (from === 0 && this.model.beads.size === 0 && canReplay(this.journal)) {
      const last = await replayLog(this.model, this.journal).catch((err: unknown) =>
        foldingReported(() => {
          throw err;
        }),
      );
      if (last) {
        this.#durable = last.seq;
        this.#anchor = last;
        this.#sinceSnapshot += last.seq;
      }
    }
    await this.log.attach(this.#folder, this.model.seq);
    this.#durable = Math.max(this.#durable, this.model.seq);
    this.log.follow();
    this.startup.replayed = this.model.seq - from;
    this.startup.ms = Math.round(performance.now() - started);
    this.#started = true;
    this.#maybeSnapshot();
  }

  /**
   * Queues `command` on the log and resolves with its result once its events are durable and folded.
   * @throws the catalogue error of a refusal (404, 409, 400, 422); SeqConflictError when the retries are
   *   spent; UnavailableError when the journal cannot append or the runner is stopped (nothing stored);
   *   OutcomeUnknownError when the journal cannot tell whether the events were stored.
   */
  run<C extends BeadCommand>(command: C, actor: string): Promise<ResultOf<C>> {
    return this.runDecider((model, ctx) => decide(model, command, ctx), actor);
  }

  /**
   * Like {@link run}, for another family's pure decider over the same model (sessions are beads): its
   * `bead.*` state events (one, or many through `Decision.more`: a cooked molecule) and its notices
   * (`session.*`, `request.*`) land as one batch, or nothing does.
   */
  runDecider<R>(
    decider: (model: Readonly<BeadModel>, ctx: EventContext) => Outcome<R>,
    actor: string,
  ): Promise<R> {
    if (this.#stopped) return Promise.reject(new UnavailableError('bead store is stopped'));
    const log = this.journal.name;
    return this.log.runSpeculative(() => {
      const outcome = decider(this.model, { actor, now: this.options.clock().toISOString() });
      if (!outcome.ok) throw rejectionError(outcome.rejection);
      const { event, more = [], notices, result } = outcome.decision;
      const drafts = event ? [event, ...more, ...notices] : notices;
      let applied = false;
      return {
        records: drafts.map((draft) => recordOf(draft)),
        undoable: !drafts.some((d) => d.type === 'bead.deleted'),
        apply: (events) => {
          const undo = evolveUndoable(this.model, events, log);
          applied = true;
          this.#speculating++;
          return () => {
            undo();
            applied = false;
            this.#speculating--;
          };
        },
        commit: (stored) => {
          // Applied in its round, now durable; otherwise the runtime folded it like any other event.
          if (applied) {
            this.#speculating--;
            this.#folded(stored);
          }
          return result;
        },
      };
    }, this.#folder);
  }

  /** Folds the runtime's events (in order, each once); the model skips any at or below its seq. */
  #fold(events: readonly JournalEvent[]): void {
    for (const event of events) {
      if (event.seq <= this.model.seq) continue;
      // A damaged record stops the fold here (logged, thrown): the model never runs past it.
      foldingReported(() => evolve(this.model, event, this.journal.name));
    }
    this.#folded(events);
  }

  /** Events now durable and in the model: the snapshot anchor, blocking readers, the snapshot pace. */
  #folded(events: readonly JournalEvent[]): void {
    const last = events[events.length - 1];
    if (!last || last.seq <= this.#durable) return;
    this.#sinceSnapshot += last.seq - Math.max(this.#durable, events[0]!.seq - 1);
    this.#durable = last.seq;
    this.#anchor = { seq: last.seq, type: last.type, ts: last.ts };
    if (this.#started && this.#sinceSnapshot >= (this.options.snapshot?.every ?? Infinity))
      this.#maybeSnapshot();
    if (this.#waiters.size === 0) return;
    for (const waiter of this.#waiters) if (this.#durable > waiter.index) waiter.done(true);
  }

  /**
   * Resolves true once the model's seq is above `index`, false after `timeoutMs`, on `signal`'s abort
   * or when the runner stops.
   */
  waitForIndex(index: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#durable > index) return Promise.resolve(true);
    if (this.#stopped || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const abort = () => waiter.done(false);
      // A wait alone never keeps the process alive (an abandoned runner's loop must not hold a test open).
      const timer = setTimeout(abort, timeoutMs);
      timer.unref();
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
    // A snapshot holds durable state only: none while a round's writes are applied but in flight.
    if (!policy || this.#writing || this.#speculating > 0 || this.#sinceSnapshot < policy.every) return;
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
   * Detaches the model from the log, releases every waiter, lets queued commands finish, and writes a last
   * snapshot when the policy asks for one. Idempotent.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const waiter of this.#waiters) waiter.done(false);
    // Queued behind the commands already on the log, so they finish (and fold) first.
    await this.log.catchUp().catch(() => undefined);
    this.log.detach(this.#folder);
    await this.#writing;
    const policy = this.options.snapshot;
    if (policy && this.#sinceSnapshot > 0 && this.#sinceSnapshot >= policy.min)
      await this.#writeSnapshot(policy);
  }
}
