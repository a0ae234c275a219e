/**
 * Guards of the session deciders that the lifecycle tests (machine.test.ts) pass through without pinning:
 * the stability window's edge, a death reported for a session that is not running, and a kill of a closed
 * session. Each was a mutant no test killed (issue 34). Written against the exported deciders only, on a
 * bead model and a simulated clock, so they hold whatever shape the deciders' file takes.
 */
import t from 'tap';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import type { Outcome } from '../../machines/beads/decision.ts';
import { evolve } from '../../machines/beads/evolve.ts';
import { createModel, type BeadModel } from '../../machines/beads/model.ts';
import {
  decideBeginStart,
  decideClose,
  decideDied,
  decideKilled,
  decideStarted,
  decideSuspended,
} from '../../machines/sessions/decide.ts';
import { decideCreateSession } from '../../machines/sessions/decideCreate.ts';
import { sessionOf, type SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import { DEFAULT_SESSION_THRESHOLDS } from '../../machines/sessions/thresholds.ts';

const T = { ...DEFAULT_SESSION_THRESHOLDS, stabilityMs: 30_000, maxWakeAttempts: 5 };
type Ctx = { actor: string; now: string };

/** A bead model on a simulated clock; `run` folds an accepted decision's events as the runner would. */
function world() {
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
  const w = {
    model,
    written,
    run,
    /** The outcome, folded when accepted (a refusal folds nothing). */
    attempt: <R>(decide: (m: BeadModel, c: Ctx) => Outcome<R>) => fold(decide(model, ctx())),
    session: (id: string): SessionRecord => sessionOf(model.beads.get(id)!.bead),
    now: () => now,
    advance: (ms: number) => void (now += ms),
    create: (): string =>
      run((m, c) =>
        decideCreateSession(
          m,
          { template: 'mock', provider: 'mock', title: 't', workDir: '/c', command: 'x', requestId: 'req-1' },
          c,
        ),
      ).id,
    start: (id: string) => {
      run((m, c) => decideBeginStart(m, id, 'tok', now, c));
      run((m, c) => decideStarted(m, id, now, () => ({ id }), c));
    },
    died: (id: string) => run((m, c) => decideDied(m, id, now, T, c)),
  };
  return w;
}

t.test(
  'the stability window: a death before its end counts toward quarantine, one at its end does not',
  async (t) => {
    const w = world();
    const id = w.create();
    w.start(id);
    w.advance(1_000);
    w.died(id);
    t.equal(w.session(id).wakeAttempts, 1, 'an early death is the first crash');

    w.start(id);
    w.advance(T.stabilityMs - 1);
    w.died(id);
    t.equal(
      w.session(id).wakeAttempts,
      2,
      `a death ${T.stabilityMs - 1} ms after the start counts: 2 in a row`,
    );

    w.start(id);
    w.advance(T.stabilityMs);
    w.died(id);
    t.equal(
      w.session(id).wakeAttempts,
      1,
      `a death exactly ${T.stabilityMs} ms after the start is past the window: the count starts again at 1`,
    );
  },
);

t.test('a death reported for a session that is not active changes nothing and writes nothing', async (t) => {
  const w = world();
  const states: string[] = [];
  const check = (id: string) => {
    const before = w.session(id);
    const written = w.written.length;
    const out = w.attempt((m, c) => decideDied(m, id, w.now(), T, c));
    states.push(before.state);
    t.ok(out.ok, `${before.state}: accepted (a late report is no error)`);
    t.equal(w.written.length, written, `${before.state}: no event, no crash counted`);
    t.same(w.session(id), before, `${before.state}: the session is as it was`);
  };

  check(w.create()); // creating

  const asleep = w.create();
  w.start(asleep);
  w.advance(1_000);
  w.died(asleep);
  check(asleep);

  const suspended = w.create();
  w.start(suspended);
  w.run((m, c) => decideSuspended(m, suspended, w.now(), true, c));
  check(suspended);

  const closed = w.create();
  w.start(closed);
  w.run((m, c) => decideClose(m, closed, w.now(), true, c));
  check(closed);

  const quarantined = w.create();
  w.start(quarantined);
  for (let i = 0; i < T.maxWakeAttempts; i++) {
    w.advance(1_000);
    w.died(quarantined);
    if (i < T.maxWakeAttempts - 1) w.start(quarantined);
  }
  check(quarantined);

  t.same(
    states,
    ['creating', 'asleep', 'suspended', 'closed', 'quarantined'],
    'every state but active was tried',
  );
});

t.test('a kill of a closed session is refused and writes nothing', async (t) => {
  const w = world();
  const id = w.create();
  w.start(id);
  w.run((m, c) => decideClose(m, id, w.now(), true, c));
  const before = w.session(id);
  const written = w.written.length;
  const out = w.attempt((m, c) => decideKilled(m, id, c));
  t.same(
    out.ok ? 'accepted' : out.rejection.kind,
    'conflict',
    'a closed session cannot be killed (the service checks too; the decider must not rely on it)',
  );
  t.equal(w.written.length, written, 'no session.stopped, no bead change');
  t.same(w.session(id), before);
  t.notOk(w.session(id).killed, 'not marked killed');
});
