/**
 * Guards of the session deciders that the lifecycle tests (machine.test.ts) pass through without pinning:
 * the stability window's edge, a death reported for a session that is not running, and a kill of a closed
 * session. Each was a mutant no test killed (issue 34). Written against the exported deciders only, on a
 * bead model and a simulated clock, so they hold whatever shape the deciders' file takes.
 */
import t from 'tap';
import { decideClose, decideDied, decideKilled, decideSuspended } from '../../machines/sessions/decide.ts';
import { sessionWorld as world, WORLD_THRESHOLDS as T } from '../helpers/sessionWorld.ts';

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
