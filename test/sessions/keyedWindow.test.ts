/**
 * The accept decider's keyed window (pure, on a bead model): a keyed message records its key and first 202 in the same
 * change that accepts it, a retry of the key writes nothing, another body under it is refused, and the
 * session keeps only the newest KEYED_WINDOW keys (and a long key as its digest).
 */
import t from 'tap';
import type { Outcome } from '../../machines/beads/decision.ts';
import { evolve } from '../../machines/beads/evolve.ts';
import { createModel, type BeadModel } from '../../machines/beads/model.ts';
import { decideBeginStart, decideStarted } from '../../machines/sessions/decide.ts';
import { decideCreateSession } from '../../machines/sessions/decideCreate.ts';
import { decideAcceptRequest } from '../../machines/sessions/decideRequests.ts';
import { KEYED_WINDOW, keyedAccepts, lookupKeyed } from '../../machines/sessions/keyedRequests.ts';
import { K, sessionOf } from '../../machines/sessions/sessionRecord.ts';
import { requestHash } from '../../actors/beads/idempotency.ts';
import { keyedRequest } from '../../actors/sessions/keyedReplies.ts';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';

const hash = (n: number) => requestHash({ op: 'message', message: `text ${n}` });

/** A started session on a bead model; `run` folds a decision's events as the bead runner would. */
function world() {
  const model: BeadModel = createModel('ci');
  const written: JournalEvent[] = [];
  const ctx = { actor: 'gc', now: '2026-01-01T00:00:00.000Z' };
  function run<R>(decide: (m: BeadModel, c: typeof ctx) => Outcome<R>): R {
    const out = decide(model, ctx);
    if (!out.ok) throw new Error(`${out.rejection.kind}: ${out.rejection.message}`);
    const { event, notices, result } = out.decision;
    for (const draft of event ? [event, ...notices] : notices) {
      const e = { ...draft, seq: model.seq + 1, ts: ctx.now } as JournalEvent;
      evolve(model, e, 'city');
      written.push(e);
    }
    return result;
  }
  const { id } = run((m, c) =>
    decideCreateSession(
      m,
      { template: 'mock', provider: 'mock', title: 't', workDir: '/c', command: 'x', requestId: 'req-c' },
      c,
    ),
  );
  run((m, c) => decideBeginStart(m, id, 'tok', Date.parse(ctx.now), c));
  run((m, c) => decideStarted(m, id, Date.parse(ctx.now), () => ({ id }), c));
  const meta = () => sessionOf(model.beads.get(id)!.bead).meta;
  const message = (n: number, key = `message:k${n}`, h = hash(n)) =>
    run((m, c) =>
      decideAcceptRequest(m, id, { id: `req-${n}`, op: 'message' }, c, { key, hash: h, cursor: `${n}` }),
    );
  return { written, meta, message };
}

t.test('a keyed accept is recorded with it; a retry writes nothing; another body is refused', async (t) => {
  const w = world();
  w.message(1);
  t.same(keyedAccepts(w.meta()), [
    { key: 'message:k1', hash: hash(1).slice(0, 32), requestId: 'req-1', cursor: '1' },
  ]);
  const before = w.written.length;
  const again = w.message(2, 'message:k1', hash(1));
  t.equal(w.written.length, before, 'the retry wrote nothing');
  t.same(
    again.requests.map((r) => r.id),
    ['req-1'],
    'and holds no second request',
  );
  t.throws(
    () => w.message(3, 'message:k1', hash(3)),
    /idempotency_mismatch/,
    'the same key with another body',
  );
  t.equal(w.written.length, before, 'the refusal wrote nothing');
  t.equal(lookupKeyed(w.meta(), { key: 'submit:k1', hash: hash(1) }).kind, 'new', 'keys are per op');
});

t.test(`a session keeps the newest ${KEYED_WINDOW} keys`, async (t) => {
  const w = world();
  const total = KEYED_WINDOW + 8;
  for (let n = 1; n <= total; n++) w.message(n);
  const kept = keyedAccepts(w.meta());
  t.equal(kept.length, KEYED_WINDOW);
  t.equal(kept[0]!.key, `message:k9`, 'the oldest dropped first');
  t.equal(kept.at(-1)!.key, `message:k${total}`);
  t.equal(lookupKeyed(w.meta(), { key: 'message:k8', hash: hash(8) }).kind, 'new', 'a key past the window');
  t.match(lookupKeyed(w.meta(), { key: `message:k${total}`, hash: hash(total) }), {
    kind: 'retry',
    first: { requestId: `req-${total}` },
  });
});

t.test('an unreadable window reads as empty', async (t) => {
  t.same(keyedAccepts({ [K.keyedRequests]: '{not json' }), []);
  t.same(keyedAccepts({ [K.keyedRequests]: '[["a","b"],{"x":1}]' }), []);
});

t.test('a long Idempotency-Key is kept as its digest, per op', async (t) => {
  const long = 'k'.repeat(10_000);
  const message = keyedRequest({ id: '', op: 'message' }, long, 'hi');
  t.ok(message.key.length < 100, `kept as ${message.key}`);
  t.not(
    keyedRequest({ id: '', op: 'message' }, `${long}x`, 'hi').key,
    message.key,
    'another key stays apart',
  );
  t.not(keyedRequest({ id: '', op: 'submit' }, long, 'hi').key, message.key, 'a submit stays apart');
  t.equal(keyedRequest({ id: '', op: 'message' }, 'short-1', 'hi').key, 'message:short-1');
});
