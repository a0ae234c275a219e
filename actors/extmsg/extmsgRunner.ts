import { UnavailableError } from '../runtime/errors.ts';
import type { JournalEvent } from '../runtime/journal/journal.ts';
import type { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import type { LogFolder } from '../runtime/logRuntime/decision.ts';
import { foldingReported } from '../runtime/damagedRecords.ts';
import { recordOf } from '../../machines/recorded.ts';
import type { EventContext, Outcome } from '../../machines/extmsg/decision.ts';
import { evolve, evolveUndoable } from '../../machines/extmsg/evolve.ts';
import type { ExtmsgModel } from '../../machines/extmsg/model.ts';
import { rejectionError } from './rejections.ts';

/**
 * The extmsg family on its city's log runtime, as the bead store's runner is: a pure decider runs against
 * the model at the runtime's head, its records land as one fenced batch (group-committed with the other
 * extmsg decisions of the same turn), and the model is the fold of every event of the log, whoever wrote it.
 */
export class ExtmsgRunner {
  readonly #folder: LogFolder = {
    fold: (events) => this.#fold(events),
    // Only extmsg events change the model; the others only move its seq (see `evolve`).
    typePrefix: 'extmsg.',
    caughtUp: (seq) => {
      if (seq > this.model.seq) this.model.seq = seq;
      if (seq > this.#durable) this.#durable = seq;
    },
  };
  #durable = 0;
  #stopped = false;

  constructor(
    readonly log: LogRuntime,
    readonly model: ExtmsgModel,
    private readonly clock: () => Date,
  ) {}

  /** The city event index of durable state (`X-GC-Index`). */
  get index(): number {
    return this.#durable;
  }

  /**
   * Attaches the model to the log (folding it from the start) and follows it.
   * @throws UnavailableError when the log cannot be read; DamagedRecordError at a damaged extmsg record.
   */
  async start(): Promise<void> {
    await this.log.attach(this.#folder, this.model.seq);
    this.#durable = Math.max(this.#durable, this.model.seq);
    this.log.follow();
  }

  /**
   * Decides with `decider` against the model and resolves with its result once its records are durable
   * and folded.
   * @throws the catalogue error of a refusal; UnavailableError when the journal cannot append or the
   *   runner is stopped (nothing stored); SeqConflictError, OutcomeUnknownError as the log runtime.
   */
  run<R>(
    decider: (model: Readonly<ExtmsgModel>, ctx: EventContext) => Outcome<R>,
    actor: string,
  ): Promise<R> {
    if (this.#stopped) return Promise.reject(new UnavailableError('extmsg service is stopped'));
    const log = this.log.journal.name;
    return this.log.runSpeculative(() => {
      const outcome = decider(this.model, { actor, now: this.clock().toISOString() });
      if (!outcome.ok) throw rejectionError(outcome.rejection);
      const { records, result } = outcome.decision;
      let applied = false;
      return {
        records: records.map((draft) => recordOf(draft)),
        undoable: true,
        apply: (events) => {
          const undo = evolveUndoable(this.model, events, log);
          applied = true;
          return () => {
            undo();
            applied = false;
          };
        },
        commit: (stored) => {
          if (applied) this.#folded(stored);
          return result;
        },
      };
    }, this.#folder);
  }

  #fold(events: readonly JournalEvent[]): void {
    for (const event of events) {
      if (event.seq <= this.model.seq) continue;
      foldingReported(() => evolve(this.model, event, this.log.journal.name));
    }
    this.#folded(events);
  }

  #folded(events: readonly JournalEvent[]): void {
    const last = events[events.length - 1];
    if (last && last.seq > this.#durable) this.#durable = last.seq;
  }

  /** Lets queued decisions finish and detaches the model. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.log.catchUp().catch(() => undefined);
    this.log.detach(this.#folder);
  }
}
