/**
 * The last edges of the session deciders (machines/sessions/): a session from before continuation epochs,
 * a quarantine end asked of a running session, a keyed create retried after the session changed or went,
 * keyed messages, answers to a request that is not the first or not there, a failed answer, an agent's
 * idle timeout of 0, and a rename to one's own alias. Expected values worked out by hand.
 */
import t from 'tap';
import { decide, decideCreate } from '../../machines/beads/index.ts';
import { decideQuarantineOver, decideRetitle, decideStartFailed } from '../../machines/sessions/decide.ts';
import { decideCreateSession } from '../../machines/sessions/decideCreate.ts';
import { decideAcceptRequest, decideFinishRequest } from '../../machines/sessions/decideRequests.ts';
import { idleOver } from '../../machines/sessions/plan.ts';
import { sessionOf } from '../../machines/sessions/sessionRecord.ts';
import { DEFAULT_SESSION_THRESHOLDS } from '../../machines/sessions/thresholds.ts';
import { sessionWorld, WORLD_THRESHOLDS as T } from '../helpers/sessionWorld.ts';

const metaOf = (w: ReturnType<typeof sessionWorld>, id: string) => ({
  ...w.model.beads.get(id)!.bead.metadata,
});
const refusal = (out: { ok: boolean; rejection?: unknown }) => (out.ok ? 'accepted' : out.rejection);

t.test('a session recorded before continuation epochs counts on from 1', async (t) => {
  const w = sessionWorld();
  const { bead } = w.run((m, c) =>
    decideCreate(
      m,
      {
        type: 'CreateBead',
        input: {
          title: 'old',
          type: 'session',
          metadata: {
            state: 'asleep',
            session_name: 's-old',
            session_key: 'conv-1',
            creation_complete_at: 'x',
          },
        },
      },
      c,
    ),
  );
  w.run((m, c) => decideStartFailed(m, bead.id, 'gone', w.now(), T, c, 'conv-2'));
  t.equal(metaOf(w, bead.id).continuation_epoch, '2');
});

t.test('the end of a quarantine asked of a running session changes nothing', async (t) => {
  const w = sessionWorld();
  const id = w.create();
  w.start(id);
  const written = w.written.length;
  t.ok(w.attempt((m, c) => decideQuarantineOver(m, id, c)).ok);
  t.equal(w.written.length, written);
  t.equal(w.session(id).state, 'active');
});

t.test('a keyed create retried answers the session as it is now, or as made when it is gone', async (t) => {
  const w = sessionWorld();
  const input = {
    template: 'w',
    provider: 'p',
    title: 't',
    workDir: '/',
    command: 'c',
    idempotency: { key: 'k', hash: 'h' },
  };
  const first = w.run((m, c) => decideCreateSession(m, input, c));
  w.run((m, c) => decideRetitle(m, first.id, { alias: 'renamed' }, c));
  t.equal(w.run((m, c) => decideCreateSession(m, input, c)).alias, 'renamed', 'the current record');
  w.run((m, c) => decide(m, { type: 'DeleteBead', id: first.id }, c));
  const gone = w.run((m, c) => decideCreateSession(m, input, c));
  t.equal(gone.id, first.id, 'its bead gone: the session as the key recorded it');
  t.equal(gone.alias, '', 'as it was made');
});

t.test('keyed messages: a retry changes nothing, another body is refused', async (t) => {
  const w = sessionWorld();
  const id = w.create();
  w.start(id);
  const keyed = { key: 'message:k', hash: 'a'.repeat(64), cursor: '7' };
  w.run((m, c) => decideAcceptRequest(m, id, { id: 'm1', op: 'message' }, c, keyed));
  const written = w.written.length;
  t.ok(w.attempt((m, c) => decideAcceptRequest(m, id, { id: 'm2', op: 'message' }, c, keyed)).ok);
  t.equal(w.written.length, written, 'a retry: nothing written');
  t.same(
    refusal(
      w.attempt((m, c) =>
        decideAcceptRequest(m, id, { id: 'm3', op: 'message' }, c, { ...keyed, hash: 'b'.repeat(64) }),
      ),
    ),
    { kind: 'idempotency_mismatch', message: 'Idempotency-Key reused with different request body' },
  );
});

t.test('answers: by the request’s own id, never another; a failure records no delivery', async (t) => {
  const w = sessionWorld();
  const id = w.create();
  w.start(id);
  w.run((m, c) => decideAcceptRequest(m, id, { id: 'm1', op: 'message' }, c));
  w.run((m, c) => decideAcceptRequest(m, id, { id: 's1', op: 'submit' }, c));
  let from = w.written.length;
  w.run((m, c) => decideFinishRequest(m, id, 'nope', { ok: true }, w.now(), c));
  t.equal(w.written.length, from, 'an id the session does not hold: nothing');
  w.run((m, c) =>
    decideFinishRequest(m, id, 's1', { ok: false, code: 'submit_failed', message: 'x' }, w.now(), c),
  );
  t.match(w.written.at(-1), {
    type: 'request.failed',
    payload: { request_id: 's1', operation: 'session.submit' },
  });
  t.notOk(metaOf(w, id).last_nudge_delivered_at, 'a failure is no delivery');
  t.same(
    w.session(id).requests.map((r) => r.id),
    ['m1'],
  );
  from = w.written.length;
  w.run((m, c) => decideFinishRequest(m, id, 'm1', { ok: true }, w.now(), c));
  t.same(
    w.written.slice(from).map((e) => e.type),
    ['bead.updated', 'request.result.session.message'],
  );
});

t.test('an agent idle timeout of 0 falls back to the city’s', async (t) => {
  const now = Date.parse('2026-01-01T01:00:00.000Z');
  const s = sessionOf({
    id: 'gc-1',
    title: 't',
    created_at: '2026-01-01T00:00:00.000Z',
    status: 'open',
    issue_type: 'session',
    metadata: { state: 'active', 'gc.idle_timeout_ms': '0' },
  });
  t.equal(idleOver(s, { ...DEFAULT_SESSION_THRESHOLDS, idleTimeoutMs: 60_000 }, now - 60_001, now), true);
});

t.test('a rename to one’s own alias or name is no conflict', async (t) => {
  const w = sessionWorld();
  const id = w.create({ alias: 'ann' });
  t.ok(w.attempt((m, c) => decideRetitle(m, id, { alias: 'ann' }, c)).ok);
  t.ok(w.attempt((m, c) => decideRetitle(m, id, { alias: `s-${id}` }, c)).ok, 'its own session name');
});
