/**
 * The pure session layer on a simulated clock: the transition table, the deciders (each decision folded
 * into a bead model as the runner would), and the reconciler's planner. No I/O, no real time.
 */
import t from 'tap';
import type { Outcome } from '../../machines/beads/decision.ts';
import { evolve } from '../../machines/beads/evolve.ts';
import { createModel, type BeadModel } from '../../machines/beads/model.ts';
import {
  decideBeginStart,
  decideClose,
  decideDied,
  decideIdleKilled,
  decideKilled,
  decideQuarantineOver,
  decideStarted,
  decideStartFailed,
  decideSuspended,
  decideWake,
} from '../../machines/sessions/decide.ts';
import { decideCreateSession } from '../../machines/sessions/decideCreate.ts';
import { decideAcceptRequest, decideFinishRequest } from '../../machines/sessions/decideRequests.ts';
import { planTick, type SeenRuntime } from '../../machines/sessions/plan.ts';
import { SESSION_STATES, sessionOf, type SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import { DEFAULT_SESSION_THRESHOLDS, restartBackoffMs } from '../../machines/sessions/thresholds.ts';
import { nextState, SESSION_COMMANDS, type SessionCommand } from '../../machines/sessions/transitions.ts';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';

const T = { ...DEFAULT_SESSION_THRESHOLDS, stabilityMs: 30_000, maxWakeAttempts: 5, quarantineMs: 300_000 };

/** A model and a simulated clock; `run` applies a decision as the bead runner would (fold its events). */
function world() {
  const model: BeadModel = createModel('ci');
  let now = Date.parse('2026-01-01T00:00:00Z');
  const written: JournalEvent[] = [];
  const ctx = () => ({ actor: 'gc', now: new Date(now).toISOString() });
  function run<R>(decide: (m: BeadModel, c: { actor: string; now: string }) => Outcome<R>): R {
    const out = decide(model, ctx());
    if (!out.ok) throw new Error(`${out.rejection.kind}: ${out.rejection.message}`);
    const { event, notices, result } = out.decision;
    for (const draft of event ? [event, ...notices] : notices) {
      const e = { ...draft, seq: model.seq + 1, ts: draft.ts ?? ctx().now } as JournalEvent;
      evolve(model, e, 'city');
      written.push(e);
    }
    return result;
  }
  const session = (id: string): SessionRecord => sessionOf(model.beads.get(id)!.bead);
  return {
    model,
    written,
    run,
    session,
    now: () => now,
    advance: (ms: number) => void (now += ms),
    types: () => written.map((e) => e.type),
  };
}

function created(w: ReturnType<typeof world>, requestId = 'req-1'): string {
  const s = w.run((m, c) =>
    decideCreateSession(
      m,
      { template: 'mock', provider: 'mock', title: 't', workDir: '/c', command: 'x', requestId },
      c,
    ),
  );
  return s.id;
}

function started(w: ReturnType<typeof world>, id: string, token = 'tok'): void {
  w.run((m, c) => decideBeginStart(m, id, token, w.now(), c));
  w.run((m, c) => decideStarted(m, id, w.now(), () => ({ id }), c));
}

t.test("the transition table is upstream's, and nothing else is legal", async (t) => {
  // Upstream's table: command → the states it may leave from, and where it goes.
  const expected: Record<SessionCommand, [string[], string]> = {
    create: [[], 'creating'],
    ready: [['creating'], 'active'],
    suspend: [['active', 'asleep', 'quarantined'], 'suspended'],
    wake: [['asleep', 'suspended', 'quarantined', 'archived'], 'active'],
    sleep: [['active'], 'asleep'],
    quarantine: [['active', 'asleep'], 'quarantined'],
    drain: [['active'], 'draining'],
    archive: [['active', 'asleep', 'suspended', 'quarantined', 'draining'], 'archived'],
    close: [SESSION_STATES.filter((s) => s !== 'closed'), 'closed'],
  };
  for (const command of SESSION_COMMANDS) {
    const [from, to] = expected[command];
    for (const state of SESSION_STATES) {
      if (from.includes(state)) t.equal(nextState(state, command), to, `${command} from ${state}`);
      else t.equal(nextState(state, command), undefined, `${command} from ${state} is illegal`);
    }
  }
  t.equal(nextState(undefined, 'create'), 'creating');
  t.equal(nextState(undefined, 'wake'), undefined);
});

t.test('create → pre-start commit → started answers the create with the active session', async (t) => {
  const w = world();
  const id = created(w);
  t.equal(w.session(id).state, 'creating');
  t.equal(w.session(id).createRequest, 'req-1');
  t.equal(w.session(id).sessionName, `s-${id}`);
  w.run((m, c) => decideBeginStart(m, id, 'tok-1', w.now(), c));
  t.equal(w.session(id).generation, 1);
  t.equal(w.session(id).instanceToken, 'tok-1');
  w.run((m, c) => decideStarted(m, id, w.now(), (b) => ({ id: b.id, state: sessionOf(b).state }), c));
  const s = w.session(id);
  t.equal(s.state, 'active');
  t.equal(s.createRequest, undefined, 'the create is answered');
  const result = w.written.find((e) => e.type === 'request.result.session.create')!;
  t.same(result.payload, { request_id: 'req-1', session: { id, state: 'active' } });
  t.same(w.types().slice(-3), ['bead.updated', 'session.woke', 'request.result.session.create'], 'one batch');
});

t.test('a failed first start closes the session and fails its create, once', async (t) => {
  const w = world();
  const id = created(w);
  w.run((m, c) => decideStartFailed(m, id, 'no prompt', w.now(), T, c));
  t.equal(w.session(id).state, 'closed');
  const failed = w.written.filter((e) => e.type === 'request.failed');
  t.equal(failed.length, 1);
  t.match(failed[0]!.payload, {
    request_id: 'req-1',
    operation: 'session.create',
    error_code: 'create_failed',
  });
  w.run((m, c) => decideStartFailed(m, id, 'again', w.now(), T, c));
  t.equal(
    w.written.filter((e) => e.type === 'request.failed').length,
    1,
    'a closed session fails nothing again',
  );
});

t.test(
  'early deaths back off exponentially and quarantine after the fifth; the quarantine ends',
  async (t) => {
    const w = world();
    const id = created(w);
    started(w, id);
    for (let attempt = 1; attempt <= 4; attempt++) {
      w.advance(1_000); // within stability
      w.run((m, c) => decideDied(m, id, w.now(), T, c));
      const s = w.session(id);
      t.equal(s.state, 'asleep', `death ${attempt}: asleep`);
      t.equal(s.wakeAttempts, attempt);
      t.equal(
        s.notBefore,
        w.now() + restartBackoffMs(T, attempt),
        `back-off ${restartBackoffMs(T, attempt)} ms`,
      );
      t.ok(s.wakeWanted, 'a restart is wanted');
      started(w, id);
    }
    w.advance(1_000);
    w.run((m, c) => decideDied(m, id, w.now(), T, c));
    const q = w.session(id);
    t.equal(q.state, 'quarantined');
    t.equal(q.quarantinedUntil, w.now() + T.quarantineMs);
    t.equal(w.types().filter((x) => x === 'session.crashed').length, 5);
    t.equal(w.types().filter((x) => x === 'session.quarantined').length, 1);
    t.same(planTick({ sessions: [q], seen: new Map(), busy: new Set(), now: w.now(), thresholds: T }), []);
    w.advance(T.quarantineMs);
    t.same(planTick({ sessions: [q], seen: new Map(), busy: new Set(), now: w.now(), thresholds: T }), [
      { kind: 'quarantine-over', id },
    ]);
    w.run((m, c) => decideQuarantineOver(m, id, c));
    t.equal(w.session(id).state, 'asleep');
    t.equal(w.session(id).wakeAttempts, 0);
    t.ok(w.session(id).wakeWanted);
  },
);

t.test('a death after the stability window counts as the first crash again', async (t) => {
  const w = world();
  const id = created(w);
  started(w, id);
  w.advance(1_000);
  w.run((m, c) => decideDied(m, id, w.now(), T, c));
  started(w, id);
  w.advance(T.stabilityMs + 1);
  w.run((m, c) => decideDied(m, id, w.now(), T, c));
  t.equal(w.session(id).wakeAttempts, 1);
});

t.test('a kill is not a crash: the state stays, the next start comes at once', async (t) => {
  const w = world();
  const id = created(w);
  started(w, id);
  w.run((m, c) => decideKilled(m, id, c));
  t.equal(w.session(id).state, 'active', 'state unchanged by the kill');
  w.run((m, c) => decideDied(m, id, w.now(), T, c));
  const s = w.session(id);
  t.equal(s.state, 'asleep');
  t.equal(s.wakeAttempts, 0);
  t.equal(s.notBefore, undefined);
  t.notOk(w.types().includes('session.crashed'));
  t.ok(w.types().includes('session.stopped'));
});

t.test('suspend, wake and close follow the table; refusals change nothing', async (t) => {
  const w = world();
  const id = created(w);
  const before = w.written.length;
  t.throws(
    () => w.run((m, c) => decideSuspended(m, id, w.now(), false, c)),
    /conflict/,
    'creating cannot suspend',
  );
  t.throws(() => w.run((m, c) => decideWake(m, 'ci-404', c)), /not_found/);
  t.equal(w.written.length, before, 'nothing written');
  started(w, id);
  w.run((m, c) => decideSuspended(m, id, w.now(), true, c));
  t.equal(w.session(id).state, 'suspended');
  t.ok(w.types().includes('session.suspended'));
  w.run((m, c) => decideWake(m, id, c));
  t.equal(w.session(id).state, 'asleep');
  t.ok(w.session(id).wakeWanted);
  w.run((m, c) => decideClose(m, id, w.now(), false, c));
  t.equal(w.session(id).state, 'closed');
  t.throws(() => w.run((m, c) => decideWake(m, id, c)), /conflict/, 'a closed session cannot wake');
});

t.test('a message is held on the session until its one terminal event; close fails it', async (t) => {
  const w = world();
  const id = created(w);
  started(w, id);
  w.run((m, c) => decideAcceptRequest(m, id, { id: 'req-m', op: 'message' }, c));
  w.run((m, c) => decideAcceptRequest(m, id, { id: 'req-s', op: 'submit', intent: 'follow_up' }, c));
  t.same(
    w.session(id).requests.map((r) => r.id),
    ['req-m', 'req-s'],
  );
  w.run((m, c) => decideFinishRequest(m, id, 'req-m', { ok: true }, w.now(), c));
  w.run((m, c) => decideFinishRequest(m, id, 'req-m', { ok: true }, w.now(), c));
  t.equal(w.types().filter((x) => x === 'request.result.session.message').length, 1, 'exactly one terminal');
  w.run((m, c) => decideClose(m, id, w.now(), true, c));
  const failed = w.written.filter((e) => e.type === 'request.failed');
  t.equal(failed.length, 1);
  t.match(failed[0]!.payload, { request_id: 'req-s', operation: 'session.submit' });
});

t.test(
  'the planner: starts, back-off, the per-tick bound, adoption, deaths, idle, stale creates',
  async (t) => {
    const w = world();
    const ids = Array.from({ length: 7 }, (_, i) => created(w, `req-${i}`));
    const sessions = ids.map((id) => w.session(id));
    const plan = (seen: Map<string, SeenRuntime>, busy = new Set<string>(), th = T) =>
      planTick({ sessions: ids.map((id) => w.session(id)), seen, busy, now: w.now(), thresholds: th });
    t.equal(plan(new Map()).length, T.maxWakesPerTick, 'at most maxWakesPerTick starts');
    t.same(
      plan(new Map(), new Set(ids.slice(0, 6))),
      [{ kind: 'start', id: ids[6] }],
      'busy sessions are left alone',
    );

    // A runtime we started (same token) is adopted; a foreign one (no token) is not.
    w.run((m, c) => decideBeginStart(m, ids[0]!, 'tok', w.now(), c));
    const seen = new Map<string, SeenRuntime>([
      [`s-${ids[0]}`, { running: true, lastActivity: w.now(), token: 'tok' }],
    ]);
    t.same(plan(seen)[0], { kind: 'adopt', id: ids[0] });
    seen.set(`s-${ids[0]}`, { running: true, lastActivity: w.now() });
    t.same(plan(seen)[0], { kind: 'start', id: ids[0] }, 'a foreign runtime of that name is not adopted');

    // Active and not running: died; idle past the timeout: idle.
    w.run((m, c) => decideStarted(m, ids[0]!, w.now(), () => ({}), c));
    t.same(plan(new Map())[0], { kind: 'died', id: ids[0] });
    const idle = { ...T, idleTimeoutMs: 60_000 };
    seen.set(`s-${ids[0]}`, { running: true, lastActivity: w.now(), token: 'tok' });
    w.advance(61_000);
    t.same(plan(seen, new Set(), idle)[0], { kind: 'idle', id: ids[0] });

    // A create waiting past createWaitMs fails instead of starting.
    w.advance(T.createWaitMs);
    t.ok(plan(new Map()).some((a) => a.kind === 'create-timeout' && a.id === ids[1]));
    t.equal(sessions.length, 7);
  },
);

t.test(
  'a resume that dies at start is a stale key: a fresh conversation once, no crash counted',
  async (t) => {
    const w = world();
    const id = w.run((m, c) =>
      decideCreateSession(
        m,
        {
          template: 'mock',
          provider: 'mock',
          title: 't',
          workDir: '/c',
          command: 'x',
          requestId: 'r',
          sessionKey: 'k1',
        },
        c,
      ),
    ).id;
    started(w, id);
    w.run((m, c) => decideIdleKilled(m, id, w.now(), c));
    w.run((m, c) => decideBeginStart(m, id, 'tok2', w.now(), c));
    w.run((m, c) => decideStartFailed(m, id, 'No conversation found', w.now(), T, c, 'k2'));
    const s = w.session(id);
    t.equal(s.state, 'asleep');
    t.equal(s.meta.session_key, 'k2', 'a new conversation id');
    t.equal(s.meta['gc.fresh_start'], '1');
    t.equal(s.wakeAttempts, 0, 'not a crash');
    t.ok(s.wakeWanted);
    w.run((m, c) => decideBeginStart(m, id, 'tok3', w.now(), c));
    w.run((m, c) => decideStartFailed(m, id, 'still dead', w.now(), T, c, 'k3'));
    t.equal(w.session(id).meta.session_key, 'k2', 'the fresh start that fails is a crash, not another reset');
    t.equal(w.session(id).wakeAttempts, 1);
  },
);
