import t from 'tap';
import { call, cityHarness, forEachBackend, gatedJournal, type CityHarness } from './helpers.ts';

const MISMATCH = 'idempotency_mismatch: Idempotency-Key reused with different request body';
const IN_FLIGHT = 'in_flight: request with this Idempotency-Key is already in progress';

const keyed = (h: CityHarness, path: string, body: unknown, key: string) =>
  call(h, 'POST', path, body, { 'idempotency-key': key });

const countCreated = async (h: CityHarness) => (await h.journal.list({ type: 'bead.created' })).length;

forEachBackend(t, async (t, env) => {
  for (const [path, body, other] of [
    ['/beads', { title: 'once', labels: ['a'], priority: 1 }, { title: 'twice' }],
    ['/mail', { to: 'bob', subject: 'once', body: 'hello' }, { to: 'bob', subject: 'twice' }],
  ] as const) {
    t.test(`${path}: the same key and body answer the original response; another body is 422`, async (t) => {
      const h = await cityHarness(t, env);
      const first = await keyed(h, path, body, 'k-1');
      t.equal(first.statusCode, 201);
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const again = await keyed(h, path, reordered, 'k-1');
      t.equal(again.statusCode, 201, 'a replay answers 201 too');
      t.equal(again.body, first.body, 'byte for byte the original body');
      t.equal(await countCreated(h), 1, 'one bead created');
      const mismatch = await keyed(h, path, other, 'k-1');
      t.equal(mismatch.statusCode, 422);
      t.same(mismatch.json(), { title: 'Unprocessable Entity', status: 422, detail: MISMATCH });
      const fresh = await keyed(h, path, other, 'k-2');
      t.equal(fresh.statusCode, 201, 'another key is another request');
      t.not(fresh.json().id, first.json().id);
      const unkeyed = await call(h, 'POST', path, body);
      t.not(unkeyed.json().id, first.json().id, 'without a key every request creates');
    });

    t.test(`${path}: keys survive a restart`, async (t) => {
      const h = await cityHarness(t, env);
      const first = await keyed(h, path, body, 'durable');
      await h.restart();
      const again = await keyed(h, path, body, 'durable');
      t.equal(again.statusCode, 201);
      t.equal(again.body, first.body);
      t.equal((await keyed(h, path, other, 'durable')).statusCode, 422);
      t.equal(await countCreated(h), 1);
    });

    t.test(`${path}: a key in flight is 409 with the same body, 422 with another`, async (t) => {
      let gate!: ReturnType<typeof gatedJournal>;
      const h = await cityHarness(t, env, { wrap: (j) => (gate = gatedJournal(j)) });
      gate.shut();
      const first = keyed(h, path, body, 'busy');
      await gate.held();
      const inFlight = await keyed(h, path, body, 'busy');
      t.equal(inFlight.statusCode, 409);
      t.same(inFlight.json(), { title: 'Conflict', status: 409, detail: IN_FLIGHT });
      const different = await keyed(h, path, other, 'busy');
      t.equal(different.statusCode, 422);
      t.equal(different.json().detail, MISMATCH);
      gate.open();
      t.equal((await first).statusCode, 201);
      const replay = await keyed(h, path, body, 'busy');
      t.equal(replay.statusCode, 201);
      t.equal(replay.body, (await first).body);
    });
  }

  t.test('a keyed request that fails releases its key, so a corrected retry works', async (t) => {
    const h = await cityHarness(t, env);
    const failed = await keyed(h, '/beads', { title: 'x', parent: 'zz-1' }, 'retry');
    t.equal(failed.statusCode, 404);
    const parent = await call(h, 'POST', '/beads', { title: 'p' });
    const ok = await keyed(h, '/beads', { title: 'x', parent: parent.json().id }, 'retry');
    t.equal(ok.statusCode, 201);
  });

  t.test('keys are scoped per operation: one key may create a bead, send a message and reply', async (t) => {
    const h = await cityHarness(t, env);
    const bead = await keyed(h, '/beads', { title: 't' }, 'shared');
    const mail = await keyed(h, '/mail', { to: 'bob', subject: 's', from: 'al' }, 'shared');
    t.equal(bead.statusCode, 201);
    t.equal(mail.statusCode, 201);
    const reply = await keyed(h, `/mail/${mail.json().id}/reply`, { body: 'r' }, 'shared');
    t.equal(reply.statusCode, 201);
    const again = await keyed(h, `/mail/${mail.json().id}/reply`, { body: 'r' }, 'shared');
    t.equal(again.body, reply.body, 'a replayed reply answers the first one');
    t.equal((await keyed(h, `/mail/${mail.json().id}/reply`, { body: 'other' }, 'shared')).statusCode, 422);
    t.equal(await countCreated(h), 3);
  });
});
