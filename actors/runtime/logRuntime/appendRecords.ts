import { partlyStored } from '../errors.ts';
import type { EventClock } from '../eventClock.ts';
import type { Journal, JournalDraft, JournalEvent } from '../journal/journal.ts';
import type { UntypedDecision } from './decision.ts';

/** What the log runtime's writes are stamped and fenced with (its options). */
export interface AppendOptions {
  /** Stamps each record's `ts` as it is appended (absent: the journal stamps it). */
  clock?: EventClock;
  /**
   * Asked before every append with the drafts about to be written; throws to refuse them (nothing is
   * written). The cluster's ownership fence (actors/supervisor/cluster/cityFence.ts): a supervisor that
   * does not hold a city's lease, or whose log names another owner, never writes to it.
   */
  guard?: (drafts: readonly JournalDraft[]) => void;
}

/**
 * Appends one decision's records after `head`: one atomic batch where the backend has them, else one by
 * one, each fenced on the one before. When only part lands, `landed` is handed that part (it is in the
 * log, so the caller folds it) before the partly-stored error is thrown.
 * @throws what the journal throws; OutcomeUnknownError (partlyStored) when only part was stored.
 */
export async function appendRecords(
  journal: Journal,
  records: UntypedDecision<unknown>['records'],
  head: number,
  options: AppendOptions,
  landed: (written: JournalEvent[]) => void,
): Promise<JournalEvent[]> {
  const clock = options.clock;
  options.guard?.(records.map((r) => r.draft));
  const drafts: JournalDraft[] = records.map((r) =>
    clock && r.draft.ts === undefined ? { ...r.draft, ts: clock.next() } : r.draft,
  );
  if (journal.appendBatch) {
    // The batch is one write, so one dedupe key stands for all of its records' keys.
    const ids = records.flatMap((r) => (r.msgId === undefined ? [] : [r.msgId]));
    const msgId = ids.length > 0 ? ids.join('+') : undefined;
    return journal.appendBatch(drafts, {
      expectedSeq: head,
      ...(msgId !== undefined ? { msgId } : {}),
    });
  }
  const written: JournalEvent[] = [];
  try {
    for (const [i, draft] of drafts.entries()) {
      const id = records[i]!.msgId;
      const expectedSeq = written.length > 0 ? written[written.length - 1]!.seq : head;
      written.push(await journal.append(draft, { expectedSeq, ...(id !== undefined ? { msgId: id } : {}) }));
    }
    return written;
  } catch (err) {
    if (written.length === 0) throw err;
    landed(written);
    throw partlyStored(journal.name, err);
  }
}

/** The draft as it will be stored at `seq`: stamped now, so a speculative fold sees the stored event. */
export function stampDraft(draft: JournalDraft, seq: number, clock?: EventClock): JournalEvent {
  const ts = draft.ts ?? (clock ? clock.next() : new Date().toISOString());
  const event: JournalEvent = { seq, type: draft.type, ts, actor: draft.actor };
  if (draft.subject !== undefined) event.subject = draft.subject;
  if (draft.message !== undefined) event.message = draft.message;
  if (draft.payload !== undefined) event.payload = draft.payload;
  return event;
}
