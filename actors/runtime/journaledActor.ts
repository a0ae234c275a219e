import {
  transition,
  type AnyStateMachine,
  type EventFromLogic,
  type ExecutableActionObject,
  type SnapshotFrom,
} from 'xstate';
import type { RecordEvent } from '../../machines/recorded.ts';
import type { ActorObserver } from './actorObserver.ts';
import type { LogRuntime } from './logRuntime/logRuntime.ts';
import type { LogFolder } from './logRuntime/decision.ts';

/**
 * One machine run on a journal (design.md "Shape"): a message is decided purely with XState's
 * `transition()`, the emitted records are appended (fenced, as one batch) through the log's runtime, and
 * only then the snapshot is committed and the transition's effects (the machine's named action slots,
 * filled with `.provide()`) run. Replay folds recorded events without appending or running effects.
 */
export class JournaledActor<M extends AnyStateMachine> {
  #snapshot: SnapshotFrom<M>;
  readonly #listeners = new Set<(snapshot: SnapshotFrom<M>) => void>();

  constructor(
    readonly machine: M,
    snapshot: SnapshotFrom<M>,
    readonly log: LogRuntime,
    /** Folds what others record on the log into this actor (the runtime skips it for its own records). */
    private readonly folder?: LogFolder,
    /** Told of this actor and each of its commits (the live actor view, the XState inspector). */
    private readonly observer?: ActorObserver,
  ) {
    this.#snapshot = snapshot;
    observer?.created(this);
  }

  get snapshot(): SnapshotFrom<M> {
    return this.#snapshot;
  }

  /**
   * Decides `event`, appends what it records, commits, runs effects. Resolves `true` when the machine took
   * a transition, `false` when the event did not apply in the current state (nothing recorded).
   * Throws what the runtime throws; the snapshot is then unchanged.
   */
  send(event: EventFromLogic<M>): Promise<boolean> {
    return this.log.run(() => {
      const before = this.#snapshot;
      const [next, actions] = transition(this.machine, before, event);
      const records: RecordEvent[] = [];
      const effects: ExecutableActionObject[] = [];
      for (const action of actions as ExecutableActionObject[]) {
        if (action.type === 'xstate.emit') {
          const emitted = (action.params as { event: RecordEvent }).event;
          if (emitted.type === 'record') records.push(emitted);
        } else effects.push(action);
      }
      return {
        records,
        commit: () => {
          if (next === before) return false;
          this.#snapshot = next;
          for (const effect of effects) effect.exec?.(effect.info, effect.params);
          this.#notify(event);
          return true;
        },
      };
    }, this.folder);
  }

  /** Folds events that are already recorded (replay, catch-up): no append, no effects. Pure but for state. */
  fold(events: readonly EventFromLogic<M>[]): void {
    let snapshot = this.#snapshot;
    for (const event of events) [snapshot] = transition(this.machine, snapshot, event);
    if (snapshot !== this.#snapshot) {
      this.#snapshot = snapshot;
      this.#notify(events.at(-1));
    }
  }

  /** Listens for committed or folded snapshots; returns the function that stops listening. */
  onChange(listener: (snapshot: SnapshotFrom<M>) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #notify(event: EventFromLogic<M> | undefined): void {
    for (const listener of this.#listeners) listener(this.#snapshot);
    this.observer?.changed(this, event);
  }
}
