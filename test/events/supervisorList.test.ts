import t, { type Test } from 'tap';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { LiveCities } from '../../actors/supervisor/liveCities.ts';
import { memoryApp } from '../helpers/app.ts';

async function setup(t: Test) {
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  const alpha = new MemoryJournal('alpha');
  const beta = new MemoryJournal('beta');
  cities.set({ name: 'alpha', path: '/c/alpha', journal: alpha, running: true, services: {} });
  cities.set({ name: 'beta', path: '/c/beta', journal: beta, running: false, services: {} });
  const { app } = await memoryApp({ cities });
  t.teardown(() => app.close());
  const at = (s: number) => new Date(Date.UTC(2020, 0, 1, 0, 0, s)).toISOString();
  // Interleaved in time across logs.
  await alpha.append({ type: 'a.one', actor: 'ann', ts: at(1) });
  await beta.append({ type: 'b.one', actor: 'bob', ts: at(2) });
  await cities.supervisorLog.append({
    type: 'supervisor.started',
    actor: 'gc',
    ts: at(3),
    payload: { previous_exit: 'clean' },
  });
  await alpha.append({ type: 'a.two', actor: 'ann', ts: at(4) });
  await cities.supervisorLog.append({
    type: 'request.result.city.create',
    actor: 'api',
    subject: 'beta',
    ts: at(5),
    payload: { request_id: 'req-1', name: 'beta', path: '/c/beta' },
  });
  return { app, cities, alpha, beta };
}

t.test(
  'merges every log (transient cities and __supervisor__ included), oldest first, tagged with city',
  async (t) => {
    const { app } = await setup(t);
    const res = await app.inject({ url: '/v0/events' });
    t.equal(res.statusCode, 200);
    const body = res.json();
    t.same(
      body.items.map((e: { type: string; city: string }) => `${e.city}/${e.type}`),
      [
        'alpha/a.one',
        'beta/b.one',
        '__supervisor__/supervisor.started',
        'alpha/a.two',
        'beta/request.result.city.create',
      ],
    );
    t.equal(body.total, 5);
    t.equal(body.event_cursor, '__supervisor__:2,alpha:2,beta:1');
    t.notOk(res.headers['x-gc-index'], 'no X-GC-Index at supervisor scope');
  },
);

t.test('limit keeps the newest N; total still counts everything', async (t) => {
  const { app } = await setup(t);
  const body = (await app.inject({ url: '/v0/events?limit=2' })).json();
  t.same(
    body.items.map((e: { type: string }) => e.type),
    ['a.two', 'request.result.city.create'],
  );
  t.equal(body.total, 5);
});

t.test('type and actor filters; total counts the matches before the limit', async (t) => {
  const { app } = await setup(t);
  const ann = (await app.inject({ url: '/v0/events?actor=ann&limit=1' })).json();
  t.equal(ann.total, 2);
  t.same(
    ann.items.map((e: { type: string }) => e.type),
    ['a.two'],
  );
  const typed = (await app.inject({ url: '/v0/events?type=b.one' })).json();
  t.same(
    typed.items.map((e: { city: string }) => e.city),
    ['beta'],
  );
});

t.test('after_cursor lists only what came after it, absent logs from their start', async (t) => {
  const { app } = await setup(t);
  const body = (
    await app.inject({ url: `/v0/events?after_cursor=${encodeURIComponent('__supervisor__:2,alpha:1')}` })
  ).json();
  t.same(
    body.items.map((e: { city: string; seq: number }) => `${e.city}:${e.seq}`),
    ['beta:1', 'alpha:2'],
  );
  const bad = await app.inject({ url: '/v0/events?after_cursor=nope' });
  t.equal(bad.statusCode, 400);
  t.match(bad.json().detail, /^invalid: after_cursor is not a valid event cursor/);
});

t.test('event_cursor is exactly the listed snapshot, "0" when every log is empty', async (t) => {
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  const { app } = await memoryApp({ cities });
  t.teardown(() => app.close());
  t.same((await app.inject({ url: '/v0/events' })).json(), { event_cursor: '0', items: [], total: 0 });
  await cities.supervisorLog.append({ type: 'x', actor: 'y' });
  t.equal((await app.inject({ url: '/v0/events' })).json().event_cursor, '__supervisor__:1');
});

t.test('an invalid since is a 400', async (t) => {
  const { app } = await setup(t);
  const res = await app.inject({ url: '/v0/events?since=yesterday' });
  t.equal(res.statusCode, 400);
  t.equal(res.json().detail, 'invalid since duration: time: invalid duration "yesterday"');
  const recent = (await app.inject({ url: '/v0/events?since=1h' })).json();
  t.same(recent.items, [], 'every seeded event is from 2020');
});
