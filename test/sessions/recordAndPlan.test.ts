/**
 * The sessions family's reading and planning (machines/sessions/): a session bead read into its record,
 * the create decider's bead, messages accepted and answered, the keyed window's parsing, the reconciler's
 * plan for one tick, and the legal-move lookups. Expected values are worked out from the contract by hand.
 */
import t from 'tap';
import type { StoredBead } from '../../machines/beads/index.ts';
import { decideIdleKilled, decideSuspended } from '../../machines/sessions/decide.ts';
import { decideCreateSession } from '../../machines/sessions/decideCreate.ts';
import {
  decideAcceptRequest,
  decideFinishRequest,
  deliverable,
} from '../../machines/sessions/decideRequests.ts';
import { keyedAccepts } from '../../machines/sessions/keyedRequests.ts';
import { idleOver, needsObservation, planTick, type SeenRuntime } from '../../machines/sessions/plan.ts';
import { sessionMachine } from '../../machines/sessions/session.machine.ts';
import {
  isSessionBead,
  SESSION_LABEL,
  sessionNameFor,
  sessionOf,
  type SessionRecord,
} from '../../machines/sessions/sessionRecord.ts';
import { DEFAULT_SESSION_THRESHOLDS } from '../../machines/sessions/thresholds.ts';
import { commandBetween, nextState, SESSION_COMMANDS } from '../../machines/sessions/transitions.ts';
import { sessionWorld } from '../helpers/sessionWorld.ts';

const refused = (out: { ok: boolean; rejection?: unknown }) => (out.ok ? 'accepted' : out.rejection);

const bead = (metadata: Record<string, string>, extra: Partial<StoredBead> = {}): StoredBead => ({
  id: 'gc-1',
  title: 'a session',
  created_at: '2026-01-01T00:00:00.000Z',
  status: 'open',
  issue_type: 'session',
  metadata,
  ...extra,
});

t.test('a session bead read into its record', async (t) => {
  t.equal(SESSION_LABEL, 'gc:session');
  t.equal(isSessionBead(bead({})), true);
  t.equal(isSessionBead(bead({}, { issue_type: 'task' })), false);
  t.equal(sessionOf(bead({ state: 'awake' })).state, 'active', 'upstream’s awake is active');
  t.equal(sessionOf(bead({ state: 'napping' })).state, 'creating', 'an unknown state reads as creating');
  t.equal(sessionOf(bead({})).state, 'creating');
  t.equal(sessionOf(bead({ state: 'active' }, { status: 'closed' })).state, 'closed');
  const empty = sessionOf(bead({}));
  t.match(empty, { template: '', provider: '', sessionName: '', alias: '', workDir: '', command: '' });
  t.match(empty, {
    instanceToken: '',
    wakeWanted: false,
    killed: false,
    createRequest: undefined,
    requests: [],
  });
  const full = sessionOf(
    bead({
      template: 'rig/w',
      provider: 'mock',
      alias: 'ann',
      work_dir: '/w',
      command: 'run',
      wake_attempts: '3',
      generation: '-2',
      last_woke_at: 'not a time',
      quarantined_until: '2026-01-02T00:00:00.000Z',
      'gc.wake': '0',
      'gc.killed': '1',
      'gc.requests': JSON.stringify([{ id: 'm1', op: 'message' }, { op: 'submit' }, null, 'x']),
    }),
  );
  t.match(full, { template: 'rig/w', provider: 'mock', alias: 'ann', workDir: '/w', command: 'run' });
  t.equal(full.wakeAttempts, 3);
  t.equal(full.generation, 0, 'a negative count reads as 0');
  t.equal(sessionOf(bead({ generation: '1.5' })).generation, 0, 'so does a fraction');
  t.equal(sessionOf(bead({ generation: '0' })).generation, 0);
  t.equal(full.lastWokeAt, undefined, 'an unreadable instant is none');
  t.equal(full.quarantinedUntil, Date.parse('2026-01-02T00:00:00.000Z'));
  t.equal(full.wakeWanted, false, 'only "1" wants a wake');
  t.equal(full.killed, true);
  t.same(full.requests, [{ id: 'm1', op: 'message' }], 'entries without a string id are dropped');
  t.same(sessionOf(bead({ 'gc.requests': '{"id":"m1"}' })).requests, [], 'not a list');
  t.same(sessionOf(bead({ 'gc.requests': 'not json' })).requests, []);
  t.equal(sessionNameFor('rig/gc-1'), 's-rig--gc-1');
});

t.test('the create decider: a session bead in creating with its request pending', async (t) => {
  const w = sessionWorld();
  const id = w.create({ template: 'rig/w', alias: 'ann', sessionKey: 'k1' });
  const created = w.model.beads.get(id)!.bead;
  t.equal(created.issue_type, 'session');
  t.same(created.labels, ['gc:session', 'template:rig/w']);
  t.match(created.metadata, {
    template: 'rig/w',
    provider: 'mock',
    session_name: `s-${id}`,
    session_origin: 'manual',
    work_dir: '/c',
    command: 'x',
    state: 'creating',
    pending_create_claim: 'true',
    generation: '0',
    continuation_epoch: '1',
    'gc.create_request': 'req-1',
    alias: 'ann',
    session_key: 'k1',
  });
  const bare = w.create({ requestId: undefined, origin: 'ephemeral' });
  const meta = w.model.beads.get(bare)!.bead.metadata!;
  t.equal(meta.session_origin, 'ephemeral');
  for (const key of ['gc.create_request', 'alias', 'session_key'])
    t.notOk(key in meta, `no ${key} when none given`);
  const taken = w.attempt((m, c) =>
    decideCreateSession(
      m,
      { template: 'w', provider: 'p', title: 't', workDir: '/', command: 'c', alias: 'ann' },
      c,
    ),
  );
  t.same(taken.ok ? 'accepted' : taken.rejection, {
    kind: 'conflict',
    message: 'session alias ann is in use',
  });
  t.same(
    w.attempt((m, c) =>
      decideCreateSession(
        m,
        { template: 'w', provider: 'p', title: 't', workDir: '/', command: 'c', alias: `s-${id}` },
        c,
      ),
    ).ok,
    false,
    'an alias may not be another session’s name either',
  );
});

t.test('a keyed create: the retry answers the first session, another body is refused', async (t) => {
  const w = sessionWorld();
  const input = {
    template: 'w',
    provider: 'p',
    title: 't',
    workDir: '/',
    command: 'c',
    alias: 'ann',
    idempotency: { key: 'k-1', hash: 'h-1' },
  };
  const first = w.run((m, c) => decideCreateSession(m, input, c));
  const written = w.written.length;
  const again = w.run((m, c) => decideCreateSession(m, input, c));
  t.equal(again.id, first.id, 'the same session (and the alias check does not refuse it)');
  t.equal(w.written.length, written, 'nothing written');
  const other = w.attempt((m, c) =>
    decideCreateSession(m, { ...input, idempotency: { key: 'k-1', hash: 'h-2' } }, c),
  );
  t.same(other.ok ? 'accepted' : other.rejection, {
    kind: 'idempotency_mismatch',
    message: 'Idempotency-Key reused with different request body',
  });
});

t.test('messages: accepted where deliverable, waking an asleep session once, answered once', async (t) => {
  t.same(
    (['creating', 'active', 'asleep', 'suspended', 'draining', 'quarantined', 'closed'] as const).map(
      deliverable,
    ),
    [true, true, true, false, false, false, false],
  );
  const w = sessionWorld();
  const id = w.create();
  w.start(id);
  w.run((m, c) => decideAcceptRequest(m, id, { id: 'm1', op: 'message' }, c));
  t.equal(w.model.beads.get(id)!.bead.metadata!['gc.wake'], '', 'an active session is not asked to start');
  w.advance(60_000);
  w.died(id);
  const asleep = w.create();
  w.start(asleep);
  w.run((m, c) => decideSuspended(m, asleep, w.now(), true, c));
  t.same(refused(w.attempt((m, c) => decideAcceptRequest(m, asleep, { id: 'm2', op: 'message' }, c))), {
    kind: 'conflict',
    message: `session ${asleep} is suspended: it cannot take a message`,
  });
  // Asleep after the death, with a restart held back by the back-off: the message asks for it now.
  t.equal(w.session(id).wakeWanted, true);
  const idle = w.create();
  w.start(idle);
  w.run((m, c) => decideIdleKilled(m, idle, w.now(), c));
  t.equal(w.session(idle).wakeWanted, false);
  w.run((m, c) => decideAcceptRequest(m, idle, { id: 'm3', op: 'submit', intent: 'interrupt' }, c));
  t.match(w.model.beads.get(idle)!.bead.metadata, { 'gc.wake': '1', 'gc.not_before': '' }, 'asleep: woken');
  const notBefore = w.model.beads.get(id)!.bead.metadata!['gc.not_before'];
  w.run((m, c) => decideAcceptRequest(m, id, { id: 'm4', op: 'message' }, c));
  t.equal(w.model.beads.get(id)!.bead.metadata!['gc.not_before'], notBefore, 'a wake already wanted is kept');
  t.same(
    w.session(id).requests.map((r) => r.id),
    ['m1', 'm4'],
  );

  const from = w.written.length;
  w.run((m, c) => decideFinishRequest(m, id, 'm1', { ok: true }, w.now(), c));
  t.same(
    w.session(id).requests.map((r) => r.id),
    ['m4'],
    'only the answered one leaves',
  );
  t.equal(w.model.beads.get(id)!.bead.metadata!.last_nudge_delivered_at, new Date(w.now()).toISOString());
  w.run((m, c) =>
    decideFinishRequest(m, id, 'm4', { ok: false, code: 'message_failed', message: 'no pane' }, w.now(), c),
  );
  t.equal(w.model.beads.get(id)!.bead.metadata!['gc.requests'], '', 'the last one leaves an empty list');
  w.run((m, c) => decideFinishRequest(m, idle, 'm3', { ok: true, queued: true }, w.now(), c));
  w.run((m, c) => decideAcceptRequest(m, idle, { id: 'm5', op: 'submit' }, c));
  w.run((m, c) => decideFinishRequest(m, idle, 'm5', { ok: true }, w.now(), c));
  w.run((m, c) => decideAcceptRequest(m, idle, { id: 'm6', op: 'submit' }, c));
  w.run((m, c) =>
    decideFinishRequest(m, idle, 'm6', { ok: false, code: 'submit_failed', message: 'gone' }, w.now(), c),
  );
  const answers = w.written.slice(from).filter((e) => e.type.startsWith('request.'));
  t.same(
    answers.map((e) => [e.type, e.payload]),
    [
      ['request.result.session.message', { request_id: 'm1', session_id: id }],
      [
        'request.failed',
        {
          request_id: 'm4',
          operation: 'session.message',
          error_code: 'message_failed',
          error_message: 'no pane',
        },
      ],
      [
        'request.result.session.submit',
        { request_id: 'm3', session_id: idle, intent: 'interrupt', queued: true },
      ],
      [
        'request.result.session.submit',
        { request_id: 'm5', session_id: idle, intent: 'default', queued: false },
      ],
      [
        'request.failed',
        { request_id: 'm6', operation: 'session.submit', error_code: 'submit_failed', error_message: 'gone' },
      ],
    ],
  );
  const after = w.written.length;
  w.run((m, c) => decideFinishRequest(m, id, 'm1', { ok: true }, w.now(), c));
  t.equal(w.written.length, after, 'an answered request is answered once');
});

t.test('the keyed window reads only well-formed rows', async (t) => {
  const row = ['message:k', 'h', 'r1', '7'];
  const read = (v: unknown) => keyedAccepts({ 'gc.keyed_requests': JSON.stringify(v) });
  t.same(read([row]), [{ key: 'message:k', hash: 'h', requestId: 'r1', cursor: '7' }]);
  t.same(
    read([row, ['a', 'b', 'c'], ['a', 'b', 'c', 4], 'abcd', null]),
    read([row]),
    'malformed rows dropped',
  );
  t.same(read({ 0: row }), [], 'not a list');
  t.same(keyedAccepts({ 'gc.keyed_requests': '' }), []);
  t.same(keyedAccepts({ 'gc.keyed_requests': '[' }), []);
  t.same(keyedAccepts({}), []);
});

const T = { ...DEFAULT_SESSION_THRESHOLDS, idleTimeoutMs: 0, createWaitMs: 60_000, maxWakesPerTick: 2 };
const NOW = Date.parse('2026-01-01T01:00:00.000Z');
const rec = (id: string, meta: Record<string, string>, extra: Partial<StoredBead> = {}): SessionRecord =>
  sessionOf(bead({ session_name: `s-${id}`, ...meta }, { id, ...extra }));
const plan = (sessions: SessionRecord[], seen: Record<string, SeenRuntime> = {}, more = {}) =>
  planTick({
    sessions,
    seen: new Map(Object.entries(seen)),
    busy: new Set(),
    now: NOW,
    thresholds: T,
    ...more,
  });

t.test('the plan: starts wanted and due, within the per-tick budget, not held', async (t) => {
  const sessions = [
    rec('a', { state: 'creating' }),
    rec('b', { state: 'asleep', 'gc.wake': '1' }),
    rec('c', { state: 'asleep' }),
    rec('d', { state: 'asleep', 'gc.wake': '1', 'gc.not_before': new Date(NOW + 1).toISOString() }),
    rec('e', { state: 'asleep', 'gc.wake': '1', 'gc.not_before': new Date(NOW).toISOString() }),
  ];
  t.same(plan(sessions), [
    { kind: 'start', id: 'a' },
    { kind: 'start', id: 'b' },
  ]);
  t.same(plan(sessions, {}, { starting: 1 }), [{ kind: 'start', id: 'a' }], 'one start already running');
  t.same(
    plan(sessions, {}, { held: new Set(['a', 'b']) }),
    [{ kind: 'start', id: 'e' }],
    'held back: not started; c is not wanted, d is not due, e is due at its instant',
  );
  t.same(plan(sessions, {}, { busy: new Set(['a', 'b', 'e']) }), [], 'busy sessions are left alone');
});

t.test('the plan: adopt a runtime we started, only by its token, only after a start began', async (t) => {
  const mine = rec('a', { state: 'asleep', generation: '1', instance_token: 'tok' });
  const seen = (token?: string, running = true) => ({
    's-a': { running, lastActivity: 0, ...(token ? { token } : {}) },
  });
  t.same(plan([mine], seen('tok')), [{ kind: 'adopt', id: 'a' }]);
  t.same(plan([mine], seen('other')), [], 'another token: not ours');
  t.same(plan([mine], seen()), [], 'no token: not ours');
  t.same(plan([mine], seen('tok', false)), [], 'not running');
  const never = rec('b', { state: 'creating', generation: '0', instance_token: '' });
  t.same(plan([never], { 's-b': { running: true, lastActivity: 0, token: '' } }), [
    { kind: 'start', id: 'b' },
  ]);
});

t.test('the plan: a create that waited too long times out', async (t) => {
  const old = new Date(NOW - T.createWaitMs - 1).toISOString();
  const edge = new Date(NOW - T.createWaitMs).toISOString();
  t.same(plan([rec('a', { state: 'creating', 'gc.create_request': 'r' }, { created_at: old })]), [
    { kind: 'create-timeout', id: 'a' },
  ]);
  t.same(plan([rec('a', { state: 'creating', 'gc.create_request': 'r' }, { created_at: edge })]), [
    { kind: 'start', id: 'a' },
  ]);
  t.same(
    plan([rec('a', { state: 'creating' }, { created_at: old })]),
    [{ kind: 'start', id: 'a' }],
    'no request',
  );
  t.same(
    plan([rec('a', { state: 'asleep', 'gc.create_request': 'r' }, { created_at: old })]),
    [],
    'not creating',
  );
});

t.test('the plan: active sessions that died or idled, quarantines that ended', async (t) => {
  const idleT = { ...T, idleTimeoutMs: 60_000 };
  const active = rec('a', { state: 'active' });
  t.same(plan([active]), [{ kind: 'died', id: 'a' }], 'not seen');
  t.same(plan([active], { 's-a': { running: false, lastActivity: 0, exitCode: 3 } }), [
    { kind: 'died', id: 'a', exitCode: 3 },
  ]);
  t.same(plan([active], { 's-a': { running: false, lastActivity: 0, exitCode: 0 } }), [
    { kind: 'died', id: 'a', exitCode: 0 },
  ]);
  const live = (lastActivity: number) => ({ 's-a': { running: true, lastActivity } });
  t.same(plan([active], live(NOW - 60_001), { thresholds: idleT }), [{ kind: 'idle', id: 'a' }]);
  t.same(plan([active], live(NOW - 60_000), { thresholds: idleT }), [], 'exactly at the limit');
  t.same(plan([active], live(NOW - 60_001)), [], 'no idle timeout');
  const q = (until?: number) =>
    rec('q', {
      state: 'quarantined',
      ...(until ? { quarantined_until: new Date(until).toISOString() } : {}),
    });
  t.same(plan([q(NOW)]), [{ kind: 'quarantine-over', id: 'q' }]);
  t.same(plan([q(NOW + 1)]), []);
  t.same(plan([q()]), [], 'no end recorded');
  t.same(
    plan([
      rec('s', { state: 'suspended', 'gc.wake': '1' }),
      rec('c', { state: 'active' }, { status: 'closed' }),
    ]),
    [],
  );
});

t.test('idle: the agent’s own timeout over the city’s, and only after some activity', async (t) => {
  const s = rec('a', { state: 'active' });
  const own = rec('a', { state: 'active', 'gc.idle_timeout_ms': '1000' });
  const city = { ...T, idleTimeoutMs: 60_000 };
  t.equal(idleOver(own, city, NOW - 1_001, NOW), true, 'its own 1 s');
  t.equal(idleOver(own, city, NOW - 1_000, NOW), false);
  t.equal(idleOver(s, city, NOW - 1_001, NOW), false, 'the city’s 60 s');
  t.equal(
    idleOver(rec('a', { 'gc.idle_timeout_ms': '-5' }), city, NOW - 60_001, NOW),
    true,
    'a bad own value: the city’s',
  );
  t.equal(
    idleOver(rec('a', { 'gc.idle_timeout_ms': '0' }), city, NOW - 1_001, NOW),
    false,
    'own 0: the city’s',
  );
  t.equal(idleOver(s, city, 0, NOW), false, 'never active');
  t.equal(idleOver(s, { ...T, idleTimeoutMs: 0 }, 1, NOW), false, 'no limit');
});

t.test('observation is needed while some session may run', async (t) => {
  t.equal(needsObservation([]), false);
  t.equal(needsObservation([rec('s', { state: 'suspended' }), rec('x', { state: 'archived' })]), false);
  t.equal(needsObservation([rec('c', { state: 'active' }, { status: 'closed' })]), false);
  t.equal(needsObservation([rec('s', { state: 'suspended' }), rec('a', { state: 'asleep' })]), true);
});

t.test('legal moves: the command between two states, and closed is final', async (t) => {
  t.equal(SESSION_COMMANDS.length, 9);
  t.equal(commandBetween('active', 'suspended'), 'suspend');
  t.equal(commandBetween('asleep', 'active'), 'wake');
  t.equal(commandBetween('closed', 'active'), undefined);
  t.equal(commandBetween(undefined, 'creating'), 'create');
  t.equal(nextState('closed', 'wake'), undefined);
  t.equal(sessionMachine.id, 'session');
  t.equal(sessionMachine.resolveState({ value: 'closed' }).status, 'done', 'closed is a final state');
  t.equal(DEFAULT_SESSION_THRESHOLDS.quarantineMs, 300_000, 'five minutes of quarantine');
});
