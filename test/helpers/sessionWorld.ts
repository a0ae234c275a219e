/**
 * A session world for the pure tiers: a bead model on a simulated clock, where the session deciders'
 * accepted decisions are folded by the production evolve as the runner would. `run` throws on a refusal,
 * so a test cannot build on a step that did not happen; `attempt` returns the outcome either way.
 */
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import type { Outcome } from '../../machines/beads/decision.ts';
import { evolve } from '../../machines/beads/evolve.ts';
import { createModel, type BeadModel } from '../../machines/beads/model.ts';
import { decideBeginStart, decideDied, decideStarted } from '../../machines/sessions/decide.ts';
import { decideCreateSession, type CreateSessionInput } from '../../machines/sessions/decideCreate.ts';
import { sessionOf, type SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import { DEFAULT_SESSION_THRESHOLDS, type SessionThresholds } from '../../machines/sessions/thresholds.ts';

export const WORLD_THRESHOLDS: SessionThresholds = {
  ...DEFAULT_SESSION_THRESHOLDS,
  stabilityMs: 30_000,
  maxWakeAttempts: 5,
};
export type Ctx = { actor: string; now: string };

export function sessionWorld(T: SessionThresholds = WORLD_THRESHOLDS) {
  const model: BeadModel = createModel('dg');
  let now = Date.parse('2026-01-01T00:00:00Z');
  const written: JournalEvent[] = [];
  const ctx = (): Ctx => ({ actor: 'gc', now: new Date(now).toISOString() });
  const fold = <R>(out: Outcome<R>): Outcome<R> => {
    if (!out.ok) return out;
    const { event, notices } = out.decision;
    for (const draft of event ? [event, ...notices] : notices) {
      const e = { ...draft, seq: model.seq + 1, ts: draft.ts ?? ctx().now } as JournalEvent;
      evolve(model, e, 'city');
      written.push(e);
    }
    return out;
  };
  const run = <R>(decide: (m: BeadModel, c: Ctx) => Outcome<R>): R => {
    const out = fold(decide(model, ctx()));
    if (!out.ok) throw new Error(`${out.rejection.kind}: ${out.rejection.message}`);
    return out.decision.result;
  };
  return {
    model,
    written,
    run,
    /** The outcome, folded when accepted (a refusal folds nothing). */
    attempt: <R>(decide: (m: BeadModel, c: Ctx) => Outcome<R>) => fold(decide(model, ctx())),
    session: (id: string): SessionRecord => sessionOf(model.beads.get(id)!.bead),
    now: () => now,
    advance: (ms: number) => void (now += ms),
    create: (input: Partial<CreateSessionInput> = {}): string =>
      run((m, c) =>
        decideCreateSession(
          m,
          {
            template: 'mock',
            provider: 'mock',
            title: 't',
            workDir: '/c',
            command: 'x',
            requestId: `req-${model.seq + 1}`,
            ...input,
          },
          c,
        ),
      ).id,
    start: (id: string) => {
      run((m, c) => decideBeginStart(m, id, 'tok', now, c));
      run((m, c) => decideStarted(m, id, now, () => ({ id }), c));
    },
    died: (id: string) => run((m, c) => decideDied(m, id, now, T, c)),
  };
}
