/**
 * What each session decider writes (machines/sessions/decide.ts): the notices of a change, every metadata
 * key it sets (cleared keys included: a stale `gc.wake` restarts a session, a stale `gc.killed` hides a
 * crash), and each refusal by its message. The lifecycle tests drive these through the service; here each
 * is pinned alone, on a simulated clock, with the values worked out from the contract.
 */
import t from 'tap';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { decideUpdate } from '../../machines/beads/index.ts';
import {
  checkSuspend,
  decideBeginStart,
  decideClose,
  decideDied,
  decideDrain,
  decideIdleKilled,
  decideKilled,
  decidePermissionMode,
  decideQuarantineOver,
  decideRetitle,
  decideStarted,
  decideStartFailed,
  decideSuspended,
  decideWake,
} from '../../machines/sessions/decide.ts';
import { decideAcceptRequest } from '../../machines/sessions/decideRequests.ts';
import { restartBackoffMs } from '../../machines/sessions/thresholds.ts';
import { sessionWorld, WORLD_THRESHOLDS as T } from '../helpers/sessionWorld.ts';

type World = ReturnType<typeof sessionWorld>;

/** The notices (everything but the bead's own event) written since `from`. */
const noticesSince = (w: World, from: number): JournalEvent[] =>
  w.written.slice(from).filter((e) => !e.type.startsWith('bead.'));
const metaOf = (w: World, id: string): Record<string, string> => ({
  ...w.model.beads.get(id)!.bead.metadata,
});
const iso = (ms: number) => new Date(ms).toISOString();

/** A session that was created and started once, its create answered. */
function running(w: World, input = {}): string {
  const id = w.create(input);
  w.start(id);
  return id;
}

const refusal = (out: { ok: boolean; rejection?: { kind: string; message: string } }) =>
  out.ok ? 'accepted' : out.rejection;

t.test('the first start: active, the create answered, every hold cleared', async (t) => {
  const w = sessionWorld();
  const id = w.create();
  const from = w.written.length;
  w.run((m, c) => decideBeginStart(m, id, 'tok-1', w.now(), c));
  const begun = metaOf(w, id);
  t.match(begun, { generation: '1', instance_token: 'tok-1', last_woke_at: iso(w.now()), 'gc.killed': '' });
  w.advance(500);
  w.run((m, c) =>
    decideStarted(m, id, w.now(), (bead) => ({ id: bead.id }), c, { 'gc.acp_session_id': 'a1' }),
  );
  const meta = metaOf(w, id);
  t.match(meta, {
    state: 'active',
    state_reason: 'creation_complete',
    creation_complete_at: iso(w.now()),
    pending_create_claim: '',
    sleep_reason: '',
    quarantined_until: '',
    'gc.wake': '',
    'gc.not_before': '',
    'gc.create_request': '',
    'gc.fresh_start': '',
    'gc.acp_session_id': 'a1',
  });
  const notices = noticesSince(w, from);
  t.same(
    notices.map((e) => e.type),
    ['session.woke', 'request.result.session.create'],
  );
  t.match(notices[1], { subject: id, payload: { request_id: 'req-1', session: { id } } });
});

t.test('a later start keeps the first creation time and answers no create again', async (t) => {
  const w = sessionWorld();
  const id = running(w);
  const first = metaOf(w, id).creation_complete_at;
  w.advance(60_000);
  w.died(id);
  w.advance(60_000);
  const from = w.written.length;
  w.start(id);
  t.equal(metaOf(w, id).creation_complete_at, first);
  t.equal(metaOf(w, id).generation, '2', 'a new incarnation');
  t.same(
    noticesSince(w, from).map((e) => e.type),
    ['session.woke'],
  );
});

t.test('starts that are not legal are refused', async (t) => {
  const w = sessionWorld();
  const closed = running(w);
  w.run((m, c) => decideClose(m, closed, w.now(), false, c));
  t.same(refusal(w.attempt((m, c) => decideBeginStart(m, closed, 'tok', w.now(), c))), {
    kind: 'conflict',
    message: `session ${closed} is closed: wake is not allowed`,
  });
  t.same(refusal(w.attempt((m, c) => decideStarted(m, closed, w.now(), () => ({}), c))), {
    kind: 'conflict',
    message: `session ${closed} is closed: wake is not allowed`,
  });
  t.same(refusal(w.attempt((m, c) => decideBeginStart(m, 'dg-404', 'tok', w.now(), c))), {
    kind: 'not_found',
    message: 'session dg-404 not found',
  });
});

t.test(
  'a start that fails while the create is pending closes the session and fails the create',
  async (t) => {
    const w = sessionWorld();
    const id = w.create();
    w.run((m, c) => decideAcceptRequest(m, id, { id: 'msg-1', op: 'message' }, c));
    const from = w.written.length;
    w.run((m, c) => decideStartFailed(m, id, 'no such binary', w.now(), T, c));
    t.equal(w.model.beads.get(id)!.bead.status, 'closed');
    t.match(metaOf(w, id), {
      state: 'closed',
      close_reason: 'failed-create',
      closed_at: iso(w.now()),
      'gc.create_request': '',
      pending_create_claim: '',
    });
    t.same(
      noticesSince(w, from).map((e) => e.payload),
      [
        {
          request_id: 'req-1',
          operation: 'session.create',
          error_code: 'create_failed',
          error_message: 'no such binary',
        },
        {
          request_id: 'msg-1',
          operation: 'session.message',
          error_code: 'message_failed',
          error_message: 'session stopped before delivery',
        },
      ],
    );
    const after = w.written.length;
    t.ok(w.attempt((m, c) => decideStartFailed(m, id, 'again', w.now(), T, c)).ok, 'closed: accepted');
    t.equal(w.written.length, after, 'and nothing written');
  },
);

t.test('a failed start counts a wake attempt and backs off, then quarantines', async (t) => {
  const w = sessionWorld();
  const id = running(w, { template: 'rig/w' });
  w.advance(60_000);
  w.died(id);
  for (let attempt = 2; attempt < T.maxWakeAttempts; attempt++) {
    const from = w.written.length;
    w.run((m, c) => decideStartFailed(m, id, `boom ${attempt}`, w.now(), T, c));
    t.match(metaOf(w, id), {
      state: 'asleep',
      sleep_reason: 'start-failed',
      slept_at: iso(w.now()),
      wake_attempts: String(attempt),
      'gc.wake': '1',
      'gc.not_before': iso(w.now() + restartBackoffMs(T, attempt)),
    });
    t.same(noticesSince(w, from), [
      {
        type: 'session.crashed',
        actor: 'gc',
        subject: id,
        message: `boom ${attempt}`,
        ts: iso(w.now()),
        payload: { session_id: id, reason: 'start_failed', template: 'rig/w' },
        seq: w.written[from + 1]!.seq,
      },
    ]);
  }
  const from = w.written.length;
  w.run((m, c) => decideStartFailed(m, id, 'last', w.now(), T, c));
  t.match(metaOf(w, id), {
    state: 'quarantined',
    sleep_reason: 'quarantine',
    quarantined_until: iso(w.now() + T.quarantineMs),
    wake_attempts: String(T.maxWakeAttempts),
    'gc.wake': '',
    'gc.not_before': '',
  });
  t.same(
    noticesSince(w, from).map((e) => e.type),
    ['session.crashed', 'session.quarantined'],
  );
});

t.test('a resume that fails at start begins a fresh conversation once, not counted', async (t) => {
  const w = sessionWorld();
  const id = running(w, { sessionKey: 'conv-1' });
  w.advance(60_000);
  w.died(id);
  const attempts = metaOf(w, id).wake_attempts;
  w.run((m, c) => decideStartFailed(m, id, 'no conversation', w.now(), T, c, 'conv-2'));
  t.match(metaOf(w, id), {
    state: 'asleep',
    sleep_reason: 'stale-key',
    session_key: 'conv-2',
    'gc.fresh_start': '1',
    continuation_epoch: '2',
    'gc.wake': '1',
    'gc.not_before': '',
    wake_attempts: attempts,
  });
  w.run((m, c) => decideStartFailed(m, id, 'fresh failed too', w.now(), T, c, 'conv-3'));
  t.equal(metaOf(w, id).sleep_reason, 'start-failed', 'a fresh start that fails is a crash');
  t.equal(metaOf(w, id).session_key, 'conv-2');
});

t.test('the continuation epoch counts on from the stored one', async (t) => {
  const w = sessionWorld();
  const id = running(w, { sessionKey: 'conv-1' });
  w.run((m, c) =>
    decideUpdate(m, { type: 'UpdateBead', id, patch: { metadata: { continuation_epoch: '5' } } }, c),
  );
  w.advance(60_000);
  w.died(id);
  w.run((m, c) => decideStartFailed(m, id, 'gone', w.now(), T, c, 'conv-2'));
  t.equal(metaOf(w, id).continuation_epoch, '6');
});

t.test('a session with a key that never completed its creation is no resume', async (t) => {
  const w = sessionWorld();
  const id = w.create({ sessionKey: 'conv-1', requestId: undefined });
  w.run((m, c) => decideBeginStart(m, id, 'tok', w.now(), c));
  w.run((m, c) => decideStartFailed(m, id, 'boom', w.now(), T, c, 'conv-2'));
  t.match(metaOf(w, id), { sleep_reason: 'start-failed', session_key: 'conv-1' });
});

t.test('deaths: a killed runtime restarts at once; a crash names its detail', async (t) => {
  const w = sessionWorld();
  const id = running(w);
  w.run((m, c) => decideKilled(m, id, c));
  t.equal(metaOf(w, id)['gc.killed'], '1');
  w.advance(1_000);
  const from = w.written.length;
  w.died(id);
  t.match(metaOf(w, id), {
    state: 'asleep',
    sleep_reason: 'killed',
    slept_at: iso(w.now()),
    'gc.wake': '1',
    'gc.not_before': '',
    'gc.killed': '',
  });
  t.equal(w.session(id).wakeAttempts, 0, 'no attempt counted');
  t.same(noticesSince(w, from), [], 'a kill is no crash');
  w.start(id);
  t.equal(metaOf(w, id)['gc.killed'], '', 'the next incarnation is not killed');
  w.advance(60_000);
  const crash = w.written.length;
  w.run((m, c) => decideDied(m, id, w.now(), T, c, 'exit status 1'));
  t.match(noticesSince(w, crash)[0], {
    type: 'session.crashed',
    message: `s-${id}: exit status 1`,
    payload: { session_id: id, reason: 'crashed' },
  });
  t.equal(metaOf(w, id).sleep_reason, 'crashed');
});

t.test('a kill writes session.stopped with reason killed; a closed session cannot be killed', async (t) => {
  const w = sessionWorld();
  const id = running(w);
  const from = w.written.length;
  w.run((m, c) => decideKilled(m, id, c));
  t.match(noticesSince(w, from), [
    { type: 'session.stopped', message: 'killed', payload: { reason: 'killed' } },
  ]);
  w.run((m, c) => decideClose(m, id, w.now(), false, c));
  t.same(refusal(w.attempt((m, c) => decideKilled(m, id, c))), {
    kind: 'conflict',
    message: `session ${id} is closed: close is not allowed`,
  });
});

t.test('an idle kill sleeps the session until it is wanted', async (t) => {
  const w = sessionWorld();
  const id = running(w);
  const from = w.written.length;
  w.run((m, c) => decideIdleKilled(m, id, w.now(), c));
  t.match(metaOf(w, id), {
    state: 'asleep',
    sleep_reason: 'idle-timeout',
    slept_at: iso(w.now()),
    'gc.wake': '',
  });
  t.same(
    noticesSince(w, from).map((e) => [e.type, e.subject]),
    [['session.idle_killed', id]],
  );
  t.same(refusal(w.attempt((m, c) => decideIdleKilled(m, id, w.now(), c))), {
    kind: 'conflict',
    message: `session ${id} is asleep: sleep is not allowed`,
  });
});

t.test('drain, then suspend: draining, then suspended with every hold and request ended', async (t) => {
  const w = sessionWorld();
  const id = running(w);
  w.run((m, c) => decideAcceptRequest(m, id, { id: 'sub-1', op: 'submit' }, c));
  let from = w.written.length;
  w.run((m, c) => decideDrain(m, id, c));
  t.equal(metaOf(w, id).state, 'draining');
  t.same(
    noticesSince(w, from).map((e) => e.type),
    ['session.draining'],
  );
  t.ok(w.attempt((m) => checkSuspend(m, id)).ok, 'a draining session may be suspended');
  from = w.written.length;
  w.run((m, c) => decideSuspended(m, id, w.now(), true, c));
  t.match(metaOf(w, id), {
    state: 'suspended',
    suspended_at: iso(w.now()),
    sleep_reason: 'user-hold',
    'gc.wake': '',
    'gc.not_before': '',
  });
  const notices = noticesSince(w, from);
  t.same(
    notices.map((e) => e.type),
    ['session.stopped', 'session.suspended', 'request.failed'],
  );
  t.match(notices[0], { payload: { reason: 'suspended' } });
  t.match(notices[2], {
    payload: {
      request_id: 'sub-1',
      operation: 'session.submit',
      error_message: 'session suspended before delivery',
    },
  });
  t.same(refusal(w.attempt((m, c) => decideDrain(m, id, c))), {
    kind: 'conflict',
    message: `session ${id} is suspended: drain is not allowed`,
  });
  t.same(refusal(w.attempt((m) => checkSuspend(m, id))), {
    kind: 'conflict',
    message: `session ${id} is suspended: suspend is not allowed`,
  });
});

t.test('a suspend of a session that was not running writes no session.stopped', async (t) => {
  const w = sessionWorld();
  const id = running(w);
  w.run((m, c) => decideIdleKilled(m, id, w.now(), c));
  const from = w.written.length;
  w.run((m, c) => decideSuspended(m, id, w.now(), false, c));
  t.same(
    noticesSince(w, from).map((e) => e.type),
    ['session.suspended'],
  );
});

t.test('a wake clears holds and counters; an active or creating session needs none', async (t) => {
  const w = sessionWorld();
  const active = running(w);
  const creating = w.create();
  for (const id of [active, creating]) {
    const from = w.written.length;
    t.ok(w.attempt((m, c) => decideWake(m, id, c)).ok);
    t.equal(w.written.length, from, `${w.session(id).state}: nothing written`);
  }
  w.run((m, c) => decideSuspended(m, active, w.now(), true, c));
  w.run((m, c) => decideWake(m, active, c));
  const afresh = {
    state: 'asleep',
    sleep_reason: '',
    quarantined_until: '',
    wake_attempts: '0',
    'gc.wake': '1',
    'gc.not_before': '',
  };
  t.match(metaOf(w, active), afresh);
  w.run((m, c) => decideClose(m, active, w.now(), false, c));
  t.same(refusal(w.attempt((m, c) => decideWake(m, active, c))), {
    kind: 'conflict',
    message: `session ${active} is closed: wake is not allowed`,
  });
});

t.test('a quarantine ends asleep with a start wanted; any other state is left alone', async (t) => {
  const w = sessionWorld();
  const id = running(w);
  for (let i = 0; i < T.maxWakeAttempts; i++) {
    w.advance(1_000);
    w.died(id);
    if (i < T.maxWakeAttempts - 1) w.start(id);
  }
  t.equal(w.session(id).state, 'quarantined');
  w.run((m, c) => decideQuarantineOver(m, id, c));
  t.match(metaOf(w, id), { state: 'asleep', wake_attempts: '0', quarantined_until: '', 'gc.wake': '1' });
  const from = w.written.length;
  t.ok(w.attempt((m, c) => decideQuarantineOver(m, id, c)).ok);
  t.equal(w.written.length, from, 'not quarantined: nothing written');
});

t.test('a close of a running session with a pending create and a message', async (t) => {
  const w = sessionWorld();
  const id = w.create();
  w.run((m, c) => decideBeginStart(m, id, 'tok', w.now(), c));
  w.run((m, c) => decideAcceptRequest(m, id, { id: 'msg-1', op: 'message' }, c));
  const from = w.written.length;
  w.run((m, c) => decideClose(m, id, w.now(), true, c));
  t.equal(w.model.beads.get(id)!.bead.status, 'closed');
  t.match(metaOf(w, id), {
    state: 'closed',
    closed_at: iso(w.now()),
    close_reason: 'closed',
    'gc.create_request': '',
    'gc.requests': '',
    'gc.wake': '',
  });
  const notices = noticesSince(w, from);
  t.same(
    notices.map((e) => [e.type, e.payload]),
    [
      ['session.stopped', { session_id: id, reason: 'closed', template: 'mock' }],
      [
        'request.failed',
        {
          request_id: 'req-1',
          operation: 'session.create',
          error_code: 'create_failed',
          error_message: 'session closed before it started',
        },
      ],
      [
        'request.failed',
        {
          request_id: 'msg-1',
          operation: 'session.message',
          error_code: 'message_failed',
          error_message: 'session closed before delivery',
        },
      ],
    ],
  );
  t.equal(notices[0]!.message, `s-${id}`, 'a stop without a message of its own: the display name');
  t.same(refusal(w.attempt((m, c) => decideClose(m, id, w.now(), false, c))), {
    kind: 'conflict',
    message: `session ${id} is closed: close is not allowed`,
  });
});

t.test('a close of a session not running and answered writes no notice', async (t) => {
  const w = sessionWorld();
  const id = running(w);
  w.run((m, c) => decideIdleKilled(m, id, w.now(), c));
  const from = w.written.length;
  w.run((m, c) => decideClose(m, id, w.now(), false, c));
  t.same(noticesSince(w, from), []);
});

t.test('retitle and rename: refusals, the alias cleared by "", one session.updated', async (t) => {
  const w = sessionWorld();
  const id = running(w, { alias: 'ann' });
  const other = running(w, { alias: 'bob' });
  t.same(refusal(w.attempt((m, c) => decideRetitle(m, id, { title: '   ' }, c))), {
    kind: 'invalid',
    message: 'title must not be empty',
  });
  t.same(refusal(w.attempt((m, c) => decideRetitle(m, id, { alias: 'bob' }, c))), {
    kind: 'conflict',
    message: 'session alias bob is in use',
  });
  let from = w.written.length;
  w.run((m, c) => decideRetitle(m, id, { title: 'New title' }, c));
  t.equal(w.model.beads.get(id)!.bead.title, 'New title');
  t.equal(metaOf(w, id).alias, 'ann', 'no alias given: kept');
  t.match(noticesSince(w, from), [{ type: 'session.updated', subject: id, message: 'ann' }]);
  from = w.written.length;
  w.run((m, c) => decideRetitle(m, id, { alias: '' }, c));
  t.equal(metaOf(w, id).alias, '', '"" clears the alias');
  t.equal(w.model.beads.get(id)!.bead.title, 'New title', 'no title given: kept');
  t.match(noticesSince(w, from), [{ type: 'session.updated', message: `s-${id}` }]);
  w.run((m, c) => decideRetitle(m, id, { alias: 'bob2' }, c));
  t.equal(metaOf(w, id).alias, 'bob2');
  w.run((m, c) => decideClose(m, other, w.now(), false, c));
  w.run((m, c) => decideRetitle(m, id, { alias: 'bob' }, c));
  t.equal(metaOf(w, id).alias, 'bob', 'a closed session’s alias is free');
  w.run((m, c) => decideClose(m, id, w.now(), false, c));
  t.same(refusal(w.attempt((m, c) => decideRetitle(m, id, { title: 'x' }, c))), {
    kind: 'conflict',
    message: `session ${id} is closed`,
  });
});

t.test('the permission mode is recorded with a session.updated; not on a closed session', async (t) => {
  const w = sessionWorld();
  const id = running(w);
  const from = w.written.length;
  w.run((m, c) => decidePermissionMode(m, id, 'plan', c));
  t.equal(metaOf(w, id).permission_mode, 'plan');
  t.same(
    noticesSince(w, from).map((e) => e.type),
    ['session.updated'],
  );
  w.run((m, c) => decideClose(m, id, w.now(), false, c));
  t.same(refusal(w.attempt((m, c) => decidePermissionMode(m, id, 'auto', c))), {
    kind: 'conflict',
    message: `session ${id} is closed`,
  });
});

t.test('the restart back-off doubles from its base up to its cap', async (t) => {
  const b = { ...T, backoffBaseMs: 1_000, backoffMaxMs: 30_000 };
  t.same(
    [0, 1, 2, 3, 5, 6, 20].map((n) => restartBackoffMs(b, n)),
    [1_000, 1_000, 2_000, 4_000, 16_000, 30_000, 30_000],
  );
});
