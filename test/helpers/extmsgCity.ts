/**
 * A city's extmsg state held in memory, for tests of the pure deciders (machines/extmsg/): a decision's
 * records are folded at once, numbered after the model's last seq, as the log runtime would append them.
 */
import { createModel, evolve, type ExtmsgModel, type Outcome } from '../../machines/extmsg/index.ts';
import type { EventDraft, JournalEvent } from '../../schemas/event.ts';

export const EXTMSG_NOW = '2030-05-01T12:00:00.000Z';
export const EXTMSG_CTX = { actor: 'tester', now: EXTMSG_NOW };

export interface ExtmsgCity {
  model: ExtmsgModel;
  /** Every record folded so far, in order. */
  written: JournalEvent[];
  /** Folds an accepted decision's records and answers its result; throws on a refusal. */
  run<R>(outcome: Outcome<R>): R;
  /** Folds the records of an accepted decision (none for a refusal) and answers the outcome. */
  attempt<R>(outcome: Outcome<R>): Outcome<R>;
  /** Folds events of other kinds (a notice, another family's event) as the log would hold them. */
  fold(drafts: readonly EventDraft[]): void;
}

export function extmsgCity(): ExtmsgCity {
  const model = createModel();
  const written: JournalEvent[] = [];
  const fold = (drafts: readonly EventDraft[]) => {
    for (const draft of drafts) {
      const event = { ...draft, seq: model.seq + 1, ts: draft.ts ?? EXTMSG_NOW } as JournalEvent;
      evolve(model, event, 'extmsg-test');
      written.push(event);
    }
  };
  const attempt = <R>(outcome: Outcome<R>): Outcome<R> => {
    if (outcome.ok) fold(outcome.decision.records);
    return outcome;
  };
  const run = <R>(outcome: Outcome<R>): R => {
    if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome.rejection)}`);
    fold(outcome.decision.records);
    return outcome.decision.result;
  };
  return { model, written, run, attempt, fold };
}
