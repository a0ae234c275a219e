import { setTimeout as sleep } from 'node:timers/promises';
import { isSeqConflict, partlyStored } from './errors.ts';
import type { EventClock } from './eventClock.ts';
import type { Journal, JournalEvent } from './journal/journal.ts';
import type { RecordEvent } from '../machines/recorded.ts';

/**
 * The one retry policy of fenced appends (style.md principle 4): only `SeqConflictError` is retried, after
 * catching up with what the other writer appended and deciding again.
 */
export const RETRY_ON_SEQ_CONFLICT = { retries: 3, minTimeoutMs: 10, factor: 2 } as const;

/** What one attempt decided: the records to append, and what to do once they are durable. */
export interface Decision<T> {
  records: readonly RecordEvent[];
  /** Commits the decided state and runs its effects; called only after every record is appended. */
  commit(): T;
}

/**
 * Appends to one log with expected-sequence fencing. Appends are serialized per log (a decision is
 * always taken against the head it will be appended at), and a stale head, meaning another process
 * wrote to the log, is handled by reading what it wrote, handing it to `catchUp` (which folds it into
 * the log's actors), and deciding again.
 */
export class LogAppender {
  #head: number;
  #tail: Promise<unknown> = Promise.resolve();

  /**
   * @param head the seq the log's actors were folded up to.
   * @param catchUp folds events this process did not decide (another writer's, or our own after a partial
   *   failure) into the log's actors.
   * @param clock stamps each record's `ts` as it is appended (absent: the journal stamps it).
   */
  constructor(
    readonly journal: Journal,
    head: number,
    private readonly catchUp: (events: JournalEvent[]) => void,
    private readonly clock?: EventClock,
  ) {
    this.#head = head;
  }

  get head(): number {
    return this.#head;
  }

  /**
   * Runs `decide` against the current head, appends its records (fenced), then commits.
   * Effects: appends to the journal; on a fencing conflict, reads the log and calls `catchUp`.
   * Throws whatever the journal throws other than a conflict, and `SeqConflictError` once the policy's
   * retries are spent; nothing is committed then. When some records were stored before the failure, it
   * throws `OutcomeUnknownError` instead: the decision is partly in the log, not refused.
   */
  run<T>(decide: () => Decision<T>): Promise<T> {
    const next = this.#tail.then(() => this.#attempt(decide));
    this.#tail = next.catch(() => undefined);
    return next;
  }

  async #attempt<T>(decide: () => Decision<T>): Promise<T> {
    let delay: number = RETRY_ON_SEQ_CONFLICT.minTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      const decision = decide();
      const written: JournalEvent[] = [];
      try {
        for (const record of decision.records) {
          const options = { expectedSeq: this.#head, ...(record.msgId ? { msgId: record.msgId } : {}) };
          const draft =
            this.clock && record.draft.ts === undefined
              ? { ...record.draft, ts: this.clock.next() }
              : record.draft;
          const event = await this.journal.append(draft, options);
          // A deduplicated retry answers the earlier event: the head never moves backwards.
          this.#head = Math.max(this.#head, event.seq);
          written.push(event);
        }
      } catch (err) {
        if (!isSeqConflict(err) || attempt >= RETRY_ON_SEQ_CONFLICT.retries) {
          if (written.length === 0) throw err;
          // What did land is in the log, so it is part of the state: fold it in before giving up. The
          // decision is then partly stored, which is no refusal (the truth rule, README "Durability").
          this.catchUp(written);
          throw partlyStored(this.journal.name, err);
        }
        if (written.length > 0) this.catchUp(written);
        const missed = await this.journal.list({ afterSeq: this.#head });
        if (missed.length > 0) {
          this.catchUp(missed);
          this.#head = missed[missed.length - 1]!.seq;
        }
        await sleep(delay);
        delay *= RETRY_ON_SEQ_CONFLICT.factor;
        continue;
      }
      return decision.commit();
    }
  }
}
