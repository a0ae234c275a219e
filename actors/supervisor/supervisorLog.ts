import { join } from 'node:path';
import { initialTransition } from 'xstate';
import {
  requestMachine,
  requestRecordOf,
  type RequestContext,
  type RequestEvent,
  type RequestInput,
} from '../../machines/request.machine.ts';
import {
  previousExitOf,
  supervisorEventsFromRecord,
  supervisorMachine,
  type PreviousExit,
} from '../../machines/supervisor.machine.ts';
import type { CausalHeads } from '../../schemas/eventCauses.ts';
import { foldingReported } from '../runtime/damagedRecords.ts';
import type { EventClock } from '../runtime/eventClock.ts';
import type { Journal, JournalBackend, JournalEvent } from '../runtime/journal/journal.ts';
import { SUPERVISOR_LOG } from '../runtime/journal/journal.ts';
import type { ActorObserver } from '../runtime/actorObserver.ts';
import { JournaledActor } from '../runtime/journaledActor.ts';
import { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import type { LogFolder } from '../runtime/logRuntime/decision.ts';

type RequestActor = JournaledActor<typeof requestMachine>;

/** The supervisor's log: `$GC_HOME/events.jsonl` (`__supervisor__` in cursors). */
export const supervisorLogFile = (home: string): string => join(home, 'events.jsonl');

/**
 * The actors whose events live on the supervisor's log: the supervisor's own lifecycle, and every async
 * request not yet terminated. Opening replays the whole log, so a request accepted before a crash is
 * pending again after the restart, and one that already has its terminal event never gets another.
 */
export class SupervisorLog {
  readonly #pending = new Map<string, RequestActor>();
  #log!: LogRuntime;
  /** Every actor of this log folds what the others record; the runtime skips the decider's own records. */
  #folder!: LogFolder;
  #supervisor!: JournaledActor<typeof supervisorMachine>;
  /**
   * Cluster mode: the cities whose requests this supervisor completes (the ones it owns); `pending()`
   * leaves the others to their owners. Unset: every request is ours.
   */
  reconciles: ((city: string) => boolean) | undefined;

  private constructor(
    readonly journal: Journal,
    /** Told of every actor of this log (live actor view, XState inspector). */
    private readonly observer?: ActorObserver,
    /** One log of several supervisors (a cluster): the lifecycle records of the others are not ours. */
    private readonly shared = false,
  ) {}

  /**
   * Opens and replays the supervisor log; `clock` stamps what it records from then on, after every
   * recorded `ts`; `observer` is told of every actor of the log. `shared`: the log of a whole cluster,
   * whose `supervisor.started`/`stopped` records are not folded (each supervisor's lifecycle is its own, so
   * a shared log reports the previous exit as `unknown`). Effects: opens (creating) the log and reads all
   * of it. Throws what the backend throws.
   */
  static async open(
    backend: JournalBackend,
    home: string,
    clock?: EventClock,
    observer?: ActorObserver,
    shared = false,
  ): Promise<SupervisorLog> {
    const journal = await backend.open({ name: SUPERVISOR_LOG, file: supervisorLogFile(home) });
    const log = new SupervisorLog(journal, observer, shared);
    log.#log = new LogRuntime(journal, 0, clock ? { clock } : {});
    log.#folder = {
      fold: (events) => {
        for (const event of events) clock?.observe(event.ts);
        log.fold(events);
      },
    };
    log.#supervisor = new JournaledActor(
      supervisorMachine,
      initialTransition(supervisorMachine)[0],
      log.#log,
      log.#folder,
      observer,
    );
    await log.#log.attach(log.#folder, 0);
    // Other supervisors of the cluster write here too: their requests must reach this one's fold.
    if (shared) log.#log.follow();
    return log;
  }

  /** How the previous run ended, as the replayed log says; meaningful before `boot()`. */
  get previousExit(): PreviousExit {
    return previousExitOf(this.#supervisor.snapshot.value);
  }

  /** Admits requests only while running (not before boot, not while stopping). */
  get running(): boolean {
    return this.#supervisor.snapshot.value === 'running';
  }

  /** Records `supervisor.started {previous_exit}`. Throws what the journal throws. */
  async boot(): Promise<PreviousExit> {
    const previous_exit = this.previousExit;
    await this.#supervisor.send({ type: 'BOOTED', previous_exit });
    return previous_exit;
  }

  /** Stops admitting requests (nothing recorded yet). */
  async beginStop(): Promise<void> {
    await this.#supervisor.send({ type: 'STOP' });
  }

  /** Records `supervisor.stopped`: the next run reports a clean previous exit. */
  async stopped(): Promise<void> {
    await this.#supervisor.send({ type: 'STOPPED' });
  }

  /**
   * Makes a request durable: records `request.accepted`, after which exactly one terminal event will
   * follow (in this run or a later one). Throws what the journal throws; nothing is pending then.
   */
  async accept(input: RequestInput): Promise<void> {
    const [initial] = initialTransition(requestMachine, input);
    const actor = new JournaledActor(requestMachine, initial, this.#log, this.#folder, this.observer);
    // Registered first so a catch-up fold during the append finds it; removed again if the append fails.
    this.#pending.set(input.request_id, actor);
    try {
      await actor.send({ type: 'ACCEPT' });
    } catch (err) {
      if (actor.snapshot.value === 'new') this.#pending.delete(input.request_id);
      throw err;
    }
  }

  /**
   * Records the request's success terminal (no-op when it already has one), with `causes`: the heads of
   * the city logs it follows from, so a merged stream delivers it after them.
   */
  succeed(requestId: string, causes?: CausalHeads): Promise<boolean> {
    return this.#terminate(requestId, { type: 'SUCCEED', ...(causes ? { causes } : {}) });
  }

  /** Records `request.failed` (no-op when the request already has a terminal); `causes` as `succeed`. */
  fail(requestId: string, error_code: string, error_message: string, causes?: CausalHeads): Promise<boolean> {
    return this.#terminate(requestId, {
      type: 'FAIL',
      error_code,
      error_message,
      ...(causes ? { causes } : {}),
    });
  }

  /** Accepted requests without a terminal event yet (in a cluster: of the cities this supervisor owns). */
  pending(): RequestContext[] {
    const mine = this.reconciles;
    return mine ? this.pendingEverywhere().filter((r) => mine(r.name)) : this.pendingEverywhere();
  }

  /** Accepted requests without a terminal event yet, whoever completes them. */
  pendingEverywhere(): RequestContext[] {
    return [...this.#pending.values()]
      .filter((a) => a.snapshot.value === 'accepted')
      .map((a) => a.snapshot.context);
  }

  /**
   * Folds recorded events: replay at open, and catch-up after a fencing conflict.
   * @throws DamagedRecordError (logged) at a record whose payload does not match its schema.
   */
  fold(events: readonly JournalEvent[]): void {
    foldingReported(() => {
      for (const event of events) this.#foldOne(event);
    });
  }

  #foldOne(event: JournalEvent): void {
    if (!this.shared) this.#supervisor.fold(supervisorEventsFromRecord(event, SUPERVISOR_LOG));
    const request = requestRecordOf(event, SUPERVISOR_LOG);
    if (request === undefined) return;
    let actor = this.#pending.get(request.request_id);
    if (!actor) {
      if (!request.input) return;
      actor = new JournaledActor(
        requestMachine,
        initialTransition(requestMachine, request.input)[0],
        this.#log,
        this.#folder,
        this.observer,
      );
      this.#pending.set(request.request_id, actor);
    }
    actor.fold(request.events);
    if (actor.snapshot.status === 'done') this.#pending.delete(request.request_id);
  }

  async #terminate(
    requestId: string,
    event: Extract<RequestEvent, { type: 'SUCCEED' | 'FAIL' }>,
  ): Promise<boolean> {
    const actor = this.#pending.get(requestId);
    if (!actor) return false;
    const took = await actor.send(event);
    if (actor.snapshot.status === 'done') this.#pending.delete(requestId);
    return took;
  }
}
