/**
 * The contracts of the log runtime's plug-ins: a read model it folds every event into (LogFolder), and
 * what a decider answers (Decision, SpeculativeDecision), which the runtime appends as one batch.
 */
import type { RecordEvent } from '../../../machines/recorded.ts';
import type { JournalDraft, JournalEvent } from '../journal/journal.ts';

/**
 * A read model of one log: it is handed every event of the log exactly once, in seq order, whoever wrote
 * it (a decider of this runtime, another process, a replay at start-up).
 * @throws DamagedRecordError from `fold` for a record it cannot read; the runtime stops there.
 */
export interface LogFolder {
  fold(events: readonly JournalEvent[]): void;
  /**
   * A folder that reads only the events of one family: when it attaches behind the runtime's head, the
   * events up to the head whose type does not start with this are left out (the file journal never parses
   * their lines), and `caughtUp` is then told the head. From the head on it is handed every event, as
   * every folder is. A city's services attach one after another at start-up, each from the log's start:
   * each read and parsed the whole log again, which doubled a 100-city supervisor's cold start.
   */
  readonly typePrefix?: string;
  /** The folder has now seen the log up to `seq`: the events it was not handed there are not its own. */
  caughtUp?(seq: number): void;
}

/** What one attempt decided: the records to append as one batch, and what to do once they are durable. */
export interface Decision<T> {
  records: readonly RecordEvent[];
  /** Commits the decided state and runs its effects; called only once every record is stored. */
  commit(stored: readonly JournalEvent[]): T;
}

/**
 * A decision that may be group-committed: taken against the decider's model with the records of the
 * decisions before it in the same round already applied (`apply`), and written with them in one batch.
 * Should that batch fail, `apply`'s undo takes the records back out, last round member first.
 */
export interface SpeculativeDecision<T> extends Decision<T> {
  /** False when `apply` could not be undone (the decision then goes alone, applied once durable). */
  undoable: boolean;
  /** Applies the records, as they will be stored, to the decider's model; returns how to take them back. */
  apply(events: readonly JournalEvent[]): () => void;
}

/** The storage-level form of a decision: what `run` and `appendCustom` both reduce to. */
export interface UntypedDecision<T> {
  records: readonly { draft: JournalDraft; msgId?: string }[];
  commit(stored: readonly JournalEvent[]): T;
}
