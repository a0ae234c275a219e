import t, { type Test as Tap } from 'tap';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { LiveCities } from '../../actors/supervisor/liveCities.ts';
import { SUPERVISOR_LOG, type Journal } from '../../actors/runtime/journal/journal.ts';
import { memoryApp } from '../helpers/app.ts';
import { until } from '../helpers/eventsServer.ts';
import { CountingJournal } from '../helpers/journals.ts';

async function appWith(t: Tap, journal: Journal = new MemoryJournal('alpha'), running = true) {
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  cities.set({ name: 'alpha', path: '/cities/alpha', journal, running, services: {} });
  const { app } = await memoryApp({ cities });
  t.teardown(() => app.close());
  return { app, journal };
}

async function fill(journal: Journal, n: number, type = (i: number) => (i % 2 ? 'odd.tick' : 'even.tick')) {
  for (let i = 1; i <= n; i++)
    await journal.append({ type: type(i), actor: i % 3 ? 'ann' : 'bob', payload: { i } });
}

t.test('lists newest first with X-GC-Index = head and total = head when unfiltered', async (t) => {
  const { app, journal } = await appWith(t);
  await fill(journal, 5);
  const res = await app.inject({ url: '/v0/city/alpha/events' });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['x-gc-index'], '5');
  const body = res.json();
  t.same(
    body.items.map((e: { seq: number }) => e.seq),
    [5, 4, 3, 2, 1],
  );
  t.equal(body.total, 5);
  t.notOk('next_cursor' in body, 'no next page');
  t.same(body.items[0].payload, { i: 5 });
});

t.test('an empty log is an empty page with X-GC-Index 0', async (t) => {
  const { app } = await appWith(t);
  const res = await app.inject({ url: '/v0/city/alpha/events' });
  t.same(res.json(), { items: [], total: 0 });
  t.equal(res.headers['x-gc-index'], '0');
});

t.test('pages walk down with an opaque keyset cursor, unaffected by appends between pages', async (t) => {
  const { app, journal } = await appWith(t);
  await fill(journal, 250);
  const first = (await app.inject({ url: '/v0/city/alpha/events' })).json();
  t.equal(first.items.length, 100, 'default page is 100');
  t.equal(first.items[0].seq, 250);
  await fill(journal, 10);
  const seen = [...first.items];
  let cursor = first.next_cursor as string | undefined;
  while (cursor) {
    const page = (await app.inject({ url: `/v0/city/alpha/events?cursor=${cursor}` })).json();
    seen.push(...page.items);
    cursor = page.next_cursor;
  }
  t.same(
    seen.map((e: { seq: number }) => e.seq),
    Array.from({ length: 250 }, (_, i) => 250 - i),
    'every event once, in order, none of the later appends',
  );
});

t.test('limit: 0 means the default, larger than 1000 is clamped', async (t) => {
  const { app, journal } = await appWith(t);
  await fill(journal, 1100);
  t.equal((await app.inject({ url: '/v0/city/alpha/events?limit=0' })).json().items.length, 100);
  t.equal((await app.inject({ url: '/v0/city/alpha/events?limit=5' })).json().items.length, 5);
  t.equal((await app.inject({ url: '/v0/city/alpha/events?limit=5000' })).json().items.length, 1000);
  t.equal((await app.inject({ url: '/v0/city/alpha/events?limit=-1' })).statusCode, 422);
});

t.test('filters type, actor, since and after_seq; total counts the matches', async (t) => {
  const { app, journal } = await appWith(t);
  await journal.append({ type: 'odd.tick', actor: 'ann', ts: '2020-01-01T00:00:00Z' });
  await fill(journal, 9);
  const odd = (await app.inject({ url: '/v0/city/alpha/events?type=odd.tick&limit=2' })).json();
  t.equal(odd.total, 6);
  t.same(
    odd.items.map((e: { seq: number }) => e.seq),
    [10, 8],
  );
  t.ok(odd.next_cursor);
  const bob = (await app.inject({ url: '/v0/city/alpha/events?actor=bob' })).json();
  t.ok(bob.items.every((e: { actor: string }) => e.actor === 'bob'));
  const recent = (await app.inject({ url: '/v0/city/alpha/events?since=1h' })).json();
  t.equal(recent.total, 9, 'the 2020 event is older than an hour');
  const after = (await app.inject({ url: '/v0/city/alpha/events?after_seq=7' })).json();
  t.same(
    after.items.map((e: { seq: number }) => e.seq),
    [10, 9, 8],
  );
});

t.test('an invalid since is a 400 naming the Go parse error', async (t) => {
  const { app } = await appWith(t);
  const res = await app.inject({ url: '/v0/city/alpha/events?since=5x' });
  t.equal(res.statusCode, 400);
  t.equal(res.json().detail, 'invalid since duration: time: unknown unit "x" in duration "5x"');
});

t.test('a malformed or foreign page cursor is a 400 asking to re-fetch the first page', async (t) => {
  const { app } = await appWith(t);
  for (const cursor of [
    'garbage',
    Buffer.from('100').toString('base64url'),
    '%%%',
    Buffer.from('ev1.0').toString('base64url'),
  ]) {
    const res = await app.inject({ url: `/v0/city/alpha/events?cursor=${encodeURIComponent(cursor)}` });
    t.equal(res.statusCode, 400, cursor);
    t.equal(res.json().detail, 'cursor is not a valid pagination token; re-fetch the first page');
  }
});

t.test('a blocking query waits for the next append, without polling, then answers', async (t) => {
  const journal = new CountingJournal(new MemoryJournal('alpha'));
  const { app } = await appWith(t, journal);
  await fill(journal, 2);
  const started = Date.now();
  const pending = app.inject({ url: '/v0/city/alpha/events?index=2&wait=10s' });
  await until(() => journal.opened > 0, 5000, 'the blocking query to subscribe');
  t.equal(journal.open, 1, 'waiting on one journal subscription');
  await journal.append({ type: 'x', actor: 'y' });
  const res = await pending;
  // Bounded by the 10 s wait, not a speed target: anything short of it proves the append woke it.
  t.ok(Date.now() - started < 9000, 'woke on the append, long before its 10 s wait');
  t.equal(res.headers['x-gc-index'], '3');
  t.equal(res.json().items[0].seq, 3);
  t.equal(journal.open, 0, 'subscription released');
});

t.test(
  'a blocking query answers at once when the head already passed the index, and times out',
  async (t) => {
    const { app, journal } = await appWith(t);
    await fill(journal, 2);
    const now = await app.inject({ url: '/v0/city/alpha/events?index=1' });
    t.equal(now.headers['x-gc-index'], '2');
    const started = Date.now();
    const timedOut = await app.inject({ url: '/v0/city/alpha/events?index=2&wait=150ms' });
    t.ok(Date.now() - started >= 140, 'waited');
    t.equal(timedOut.statusCode, 200);
    t.equal(timedOut.headers['x-gc-index'], '2');
  },
);

t.test('a bad index or wait is a 422 with errors[] naming each parameter', async (t) => {
  const { app } = await appWith(t);
  const res = await app.inject({ url: '/v0/city/alpha/events?index=-3&wait=soon' });
  t.equal(res.statusCode, 422);
  t.same(res.json().errors, [
    { location: 'query.index', message: 'index must be a non-negative integer', value: '-3' },
    {
      location: 'query.wait',
      message: 'wait must be a positive Go duration string (e.g. 30s)',
      value: 'soon',
    },
  ]);
  for (const wait of ['5', '5d', '-1s', 'abc', '0s']) {
    const bad = await app.inject({ url: `/v0/city/alpha/events?index=1&wait=${wait}` });
    t.equal(bad.statusCode, 422, wait);
    t.same(
      bad.json().errors.map((e: { location: string }) => e.location),
      ['query.wait'],
    );
  }
});

t.test('a blank index is no blocking query, as Go reads it', async (t) => {
  const { app, journal } = await appWith(t);
  await fill(journal, 1);
  const res = await app.inject({ url: '/v0/city/alpha/events?index=&wait=' });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['x-gc-index'], '1');
});

t.test('event routes of a city that is not running are 404', async (t) => {
  const { app } = await appWith(t, new MemoryJournal('alpha'), false);
  for (const [method, url] of [
    ['GET', '/v0/city/alpha/events'],
    ['POST', '/v0/city/alpha/events'],
    ['GET', '/v0/city/nope/events'],
  ] as const) {
    const res = await app.inject({
      method,
      url,
      headers: { 'x-gc-request': '1' },
      ...(method === 'POST' ? { payload: { type: 'a', actor: 'b' } } : {}),
    });
    t.equal(res.statusCode, 404, `${method} ${url}`);
    t.match(res.json().detail, /^not_found: city not found or not running: /);
  }
});

t.test('emit records an event and answers 201 recorded', async (t) => {
  const { app, journal } = await appWith(t);
  const res = await app.inject({
    method: 'POST',
    url: '/v0/city/alpha/events',
    headers: { 'x-gc-request': '1' },
    payload: { type: 'custom.thing', actor: 'me', subject: 'x', message: 'hello' },
  });
  t.equal(res.statusCode, 201);
  t.same(res.json(), { status: 'recorded' });
  const [event] = await journal.list();
  t.match(event, { seq: 1, type: 'custom.thing', actor: 'me', subject: 'x', message: 'hello' });
  const listed = (await app.inject({ url: '/v0/city/alpha/events' })).json().items[0];
  t.same(listed.payload, {}, 'recorded without payload, listed with {}');
});

t.test('emit refuses unknown fields, empty type/actor, and a missing X-GC-Request', async (t) => {
  const { app, journal } = await appWith(t);
  const post = (payload: unknown, headers: Record<string, string> = { 'x-gc-request': '1' }) =>
    app.inject({ method: 'POST', url: '/v0/city/alpha/events', headers, payload: payload as object });
  const extra = await post({ type: 'a', actor: 'b', payload: { x: 1 } });
  t.equal(extra.statusCode, 422);
  t.match(extra.json().errors, [{ location: 'body.payload' }]);
  const empty = await post({ type: '', actor: 'b' });
  t.equal(empty.statusCode, 422);
  t.match(empty.json().errors, [{ location: 'body.type' }]);
  t.equal((await post({ type: 'a', actor: 'b' }, {})).statusCode, 403);
  t.equal(await journal.head(), 0, 'nothing recorded');
});

t.test('emit refuses a type the city folds as state: it would forge state or damage the log', async (t) => {
  const { app, journal } = await appWith(t);
  for (const type of [
    'bead.created',
    'bead.deleted',
    'city.created',
    'city.suspended',
    'controller.stopped',
  ]) {
    const res = await app.inject({
      method: 'POST',
      url: '/v0/city/alpha/events',
      headers: { 'x-gc-request': '1' },
      payload: { type, actor: 'me' },
    });
    t.equal(res.statusCode, 422, type);
    t.match(res.json(), { detail: /^invalid: type / }, type);
    t.match(res.json().errors, [{ location: 'body.type', value: type }], type);
  }
  t.equal(await journal.head(), 0, 'nothing recorded');
  const other = await app.inject({
    method: 'POST',
    url: '/v0/city/alpha/events',
    headers: { 'x-gc-request': '1' },
    payload: { type: 'mail.sent', actor: 'me' },
  });
  t.equal(other.statusCode, 201, 'a catalogue type the city does not fold is still a custom event');
});

t.test('a registered type with a payload that does not match is normalised, never dropped', async (t) => {
  const { app, journal } = await appWith(t);
  await journal.append({ type: 'city.created', actor: 'gc', subject: 'x', payload: { name: 'x', stray: 1 } });
  await journal.append({ type: 'bead.created', actor: 'gc' });
  const items = (await app.inject({ url: '/v0/city/alpha/events' })).json().items;
  t.same(items[1].payload, { name: 'x', path: '' }, 'unknown field dropped, missing one zero-valued');
  // The bead's required fields zero-valued too, as upstream's Go zero values (its `created_at` the zero time).
  t.same(items[0].payload, {
    bead: { id: '', title: '', status: '', issue_type: '', created_at: '0001-01-01T00:00:00Z' },
  });
});
