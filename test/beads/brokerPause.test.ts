import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { JetStreamJournalBackend } from '../../actors/runtime/journal/jetstreamJournal.ts';
import { withJetStream, type JetStreamServer } from '../helpers/nats.ts';
import { call, cityHarness, type BackendEnv, type CityHarness } from './helpers.ts';

/**
 * Bead creates while the city's NATS broker is frozen (SIGSTOP) and thawed (SIGCONT): whatever the
 * answer, it is the truth about the write. A 201 is in the log once; a refusal never lands; only an
 * explicit `journal_outcome_unknown` may be followed by the bead landing; and a retry with the same
 * Idempotency-Key after the thaw leaves exactly one bead.
 */
const UNKNOWN = 'journal_outcome_unknown: ';

/** A JetStream env on this test's own server, with the journal's broker timeouts given. */
function impatient(nats: JetStreamServer, requestTimeoutMs: number, resolveTimeoutMs: number): BackendEnv {
  return {
    kind: 'jetstream',
    storage: () => {
      const prefix = `p${randomBytes(4).toString('hex')}`;
      return () =>
        new JetStreamJournalBackend({ servers: nats.url, prefix, requestTimeoutMs, resolveTimeoutMs });
    },
  };
}

/** How many `bead.created` events with `title` the city log holds, and their bead ids. */
async function created(h: CityHarness, title: string): Promise<string[]> {
  const events = await h.journal.list({ type: 'bead.created' });
  return events
    .filter((e) => (e.payload as { bead?: { title?: string } }).bead?.title === title)
    .map((e) => e.subject!);
}

/** The truth rule for one create answer against the log. */
function truthful(t: Test, title: string, status: number, detail: string | undefined, landed: string[]) {
  if (status === 201) t.equal(landed.length, 1, `${title}: answered 201, in the log once`);
  else if (detail?.startsWith(UNKNOWN)) t.ok(landed.length <= 1, `${title}: outcome unknown, at most once`);
  else t.same(landed, [], `${title}: refused (${status} ${detail}), so never in the log`);
}

/** The bead store agrees with the log: every bead created in the log is listed, and nothing else. */
async function modelMatchesLog(t: Test, h: CityHarness) {
  const logged = (await h.journal.list({ type: 'bead.created' })).map((e) => e.subject!).sort();
  const listed = (await call(h, 'GET', '/beads')).json<{ items: Array<{ id: string }> }>();
  t.same(listed.items.map((b) => b.id).sort(), logged, 'the bead store holds exactly the logged beads');
}

const nats = await withJetStream(t);
if (nats) {
  t.test('frozen past the bound: outcome unknown, never a refusal that lands', async (t) => {
    const h = await cityHarness(t, impatient(nats, 300, 300));
    // Compiling the routes takes seconds: done before the outage, so the requests meet it.
    await h.app.ready();
    await nats.pause();
    let unkeyed, keyed;
    try {
      // Both answers come while the broker is still frozen, their publishes waiting in its socket.
      unkeyed = await call(h, 'POST', '/beads', { title: 'unkeyed' });
      keyed = await call(h, 'POST', '/beads', { title: 'keyed' }, { 'idempotency-key': 'k-1' });
    } finally {
      await nats.resume();
    }
    t.equal(unkeyed.statusCode, 503);
    t.match(unkeyed.json().detail, /^journal_outcome_unknown: .*same Idempotency-Key/, 'says how to retry');
    t.equal(keyed.statusCode, 503);
    t.match(keyed.json().detail, /^journal_outcome_unknown: /);
    // The retry is stored after whatever the broker still held, so the log is complete when it answers.
    const retry = await call(h, 'POST', '/beads', { title: 'keyed' }, { 'idempotency-key': 'k-1' });
    t.equal(retry.statusCode, 201, `the keyed retry after the thaw: ${retry.body}`);
    const keyedIds = await created(h, 'keyed');
    t.same(keyedIds, [retry.json().id], 'exactly one keyed bead, the one the retry answers');
    truthful(t, 'unkeyed', unkeyed.statusCode, unkeyed.json().detail, await created(h, 'unkeyed'));
    await modelMatchesLog(t, h);
  });

  t.test('frozen briefly: the create in flight is resolved, stored once', async (t) => {
    const h = await cityHarness(t, impatient(nats, 300, 15_000));
    await h.app.ready();
    await nats.pause();
    const answer = call(h, 'POST', '/beads', { title: 'in-flight' });
    // The outage: longer than one broker request, far shorter than the resolve bound.
    await sleep(900);
    await nats.resume();
    const res = await answer;
    t.equal(res.statusCode, 201, `resolved after the thaw: ${res.body}`);
    truthful(t, 'in-flight', res.statusCode, res.json().detail, await created(h, 'in-flight'));
    const after = await call(h, 'POST', '/beads', { title: 'after' });
    t.equal(after.statusCode, 201, 'the store writes on');
    await modelMatchesLog(t, h);
  });
}
