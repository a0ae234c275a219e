import t, { type Test as Tap } from 'tap';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { LiveCities } from '../../actors/supervisor/liveCities.ts';
import { memoryApp } from '../helpers/app.ts';
import { CountingJournal } from '../helpers/journals.ts';

/** `GET /v0/city/{cityName}/status`: the blocking query of the city-scoped routes. */
async function statusApp(t: Tap) {
  const journal = new CountingJournal(new MemoryJournal('alpha'));
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  cities.set({ name: 'alpha', path: '/cities/alpha', journal, running: true, services: {} });
  const { app } = await memoryApp({ cities });
  t.teardown(() => app.close());
  // Compiles the routes now, so a test's timings measure the wait alone.
  await app.ready();
  await journal.append({ type: 'x', actor: 'y' });
  return { app, journal };
}

t.test('a bad index or wait is a 422 with errors[], not a 400', async (t) => {
  const { app } = await statusApp(t);
  const res = await app.inject({ url: '/v0/city/alpha/status?index=x&wait=soon' });
  t.equal(res.statusCode, 422);
  t.equal(res.json().detail, 'validation failed');
  t.same(res.json().errors, [
    { location: 'query.index', message: 'index must be a non-negative integer', value: 'x' },
    {
      location: 'query.wait',
      message: 'wait must be a positive Go duration string (e.g. 30s)',
      value: 'soon',
    },
  ]);
  // The config grammar this route used to read `wait` with took `5` as 5 ms.
  for (const wait of ['5', '5d', '-1s', 'abc']) {
    const bad = await app.inject({ url: `/v0/city/alpha/status?index=1&wait=${wait}` });
    t.equal(bad.statusCode, 422, wait);
    t.equal(bad.json().errors[0].value, wait);
  }
});

t.test('an index the head already passed answers at once', async (t) => {
  const { app, journal } = await statusApp(t);
  const started = Date.now();
  // A compound Go duration, which the config grammar refused.
  const res = await app.inject({ url: '/v0/city/alpha/status?index=0&wait=1m30s' });
  t.equal(res.statusCode, 200);
  t.ok(Date.now() - started < 30_000, 'answered without waiting out its 90 s wait');
  t.equal(res.headers['x-gc-index'], '1');
  t.equal(journal.open, 0, 'no subscription opened');
});

t.test('a blocked status is released by the next event, and a quiet one by its wait', async (t) => {
  const { app, journal } = await statusApp(t);
  const pending = app.inject({ url: '/v0/city/alpha/status?index=1&wait=20s' });
  for (let i = 0; i < 250 && journal.open === 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.equal(journal.open, 1, 'waiting on a journal subscription');
  await journal.append({ type: 'x', actor: 'y' });
  const res = await pending;
  t.equal(res.statusCode, 200);
  t.equal(res.headers['x-gc-index'], '2');
  t.equal(journal.open, 0, 'subscription released');
  const started = Date.now();
  const quiet = await app.inject({ url: '/v0/city/alpha/status?index=2&wait=150ms' });
  t.ok(Date.now() - started >= 140, 'waited');
  t.equal(quiet.headers['x-gc-index'], '2');
});

t.test('a client that leaves a blocked status releases its subscription', async (t) => {
  const { app, journal } = await statusApp(t);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const gone = new AbortController();
  const abandoned = fetch(`${address}/v0/city/alpha/status?index=1&wait=30s`, { signal: gone.signal });
  // Waits for the request to reach its hold (the socket path is slower than inject under load).
  for (let i = 0; i < 250 && journal.open === 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.equal(journal.open, 1, 'the blocked status holds one subscription');
  gone.abort();
  await t.rejects(abandoned);
  for (let i = 0; i < 50 && journal.open > 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.equal(journal.open, 0, 'released long before the 30s wait');
});
