import t, { type Test } from 'tap';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { listCityEvents } from '../../http/events/cityList.ts';
import { INTERNAL_EVENT_TYPES, isInternalEvent } from '../../actors/runtime/feed/visibility.ts';
import { isRegisteredEventType, OUR_EVENT_PAYLOADS } from '../../schemas/eventCatalog.ts';
import { eventsServer } from '../helpers/eventsServer.ts';
import { openSse, type SseClient } from '../helpers/sse.ts';

/**
 * The supervisor's bookkeeping events (`request.accepted`, `supervisor.stopped`: types upstream never emits)
 * stay in the log but are served only with `include=internal`, on every event list and stream. Hiding one
 * never moves a position: event_cursor, total, X-GC-Index and stream ids count it, and a resume from any
 * cursor neither repeats nor skips a served event.
 */

const at = (s: number) => new Date(Date.UTC(2020, 0, 1, 0, 0, s)).toISOString();
const accepted = (s: number) => ({
  type: 'request.accepted',
  actor: 'api',
  subject: 'alpha',
  ts: at(s),
  payload: { request_id: `req-${s}`, operation: 'city.create', name: 'alpha', path: '/cities/alpha' },
});

/**
 * `__supervisor__`: 1 started, 2 accepted, 3 stopped, 4 started, 5 accepted, 6 result, 7 accepted;
 * `alpha`: 1 city.created (oldest of all), 2 a custom `request.accepted` a user emitted (newest of all).
 */
async function setup(t: Test) {
  const srv = await eventsServer(t);
  const sup = srv.cities.supervisorLog;
  const alpha = srv.addCity('alpha');
  await alpha.append({
    type: 'city.created',
    actor: 'gc',
    subject: 'alpha',
    ts: at(0),
    payload: { name: 'alpha', path: '/cities/alpha' },
  });
  await sup.append({
    type: 'supervisor.started',
    actor: 'gc',
    ts: at(1),
    payload: { previous_exit: 'unknown' },
  });
  await sup.append(accepted(2));
  await sup.append({ type: 'supervisor.stopped', actor: 'gc', ts: at(3), payload: {} });
  await sup.append({
    type: 'supervisor.started',
    actor: 'gc',
    ts: at(4),
    payload: { previous_exit: 'clean' },
  });
  await sup.append(accepted(6));
  await sup.append({
    type: 'request.result.city.create',
    actor: 'api',
    subject: 'alpha',
    ts: at(7),
    payload: { request_id: 'req-6', name: 'alpha', path: '/cities/alpha' },
  });
  await sup.append(accepted(8));
  const emitted = await srv.app.inject({
    method: 'POST',
    url: '/v0/city/alpha/events',
    headers: { 'x-gc-request': '1' },
    payload: { type: 'request.accepted', actor: 'user', message: 'mine' },
  });
  t.equal(emitted.statusCode, 201, 'a user emits a custom event that happens to share the name');
  return { srv, sup, alpha };
}

type Item = { type: string; city: string; seq: number; actor: string };
const keys = (items: Item[]) => items.map((e) => `${e.city}/${e.seq}/${e.type}`);

t.test(
  'GET /v0/events leaves bookkeeping out unless include=internal; positions still count it',
  async (t) => {
    const { srv } = await setup(t);
    const res = await srv.app.inject({ url: '/v0/events' });
    t.equal(res.statusCode, 200);
    const body = res.json();
    t.same(keys(body.items), [
      'alpha/1/city.created',
      '__supervisor__/1/supervisor.started',
      '__supervisor__/4/supervisor.started',
      'alpha/6/request.result.city.create',
      'alpha/2/request.accepted',
    ]);
    t.equal(body.items.at(-1).actor, 'user', "the last one is the user's custom event, served as emitted");
    t.equal(body.event_cursor, '__supervisor__:7,alpha:2', 'the cursor covers the hidden events');
    t.equal(body.total, 9, 'unfiltered total: the sum of the heads, hidden events included');

    const all = (await srv.app.inject({ url: '/v0/events?include=internal' })).json();
    t.same(keys(all.items), [
      'alpha/1/city.created',
      '__supervisor__/1/supervisor.started',
      '__supervisor__/2/request.accepted',
      '__supervisor__/3/supervisor.stopped',
      '__supervisor__/4/supervisor.started',
      '__supervisor__/5/request.accepted',
      'alpha/6/request.result.city.create',
      '__supervisor__/7/request.accepted',
      'alpha/2/request.accepted',
    ]);
    t.equal(all.event_cursor, body.event_cursor);
    t.equal(all.total, 9);
    const blank = (await srv.app.inject({ url: '/v0/events?include=' })).json();
    t.same(keys(blank.items), keys(body.items), 'a blank include is absent');
  },
);

t.test('limit keeps the newest N served events, reading past hidden ones', async (t) => {
  const { srv } = await setup(t);
  const body = (await srv.app.inject({ url: '/v0/events?limit=3' })).json();
  t.same(keys(body.items), [
    '__supervisor__/4/supervisor.started',
    'alpha/6/request.result.city.create',
    'alpha/2/request.accepted',
  ]);
  t.equal(body.total, 9);
  const all = (await srv.app.inject({ url: '/v0/events?limit=3&include=internal' })).json();
  t.same(keys(all.items), [
    'alpha/6/request.result.city.create',
    '__supervisor__/7/request.accepted',
    'alpha/2/request.accepted',
  ]);
});

t.test('filters match served events only; a filtered total counts only those', async (t) => {
  const { srv } = await setup(t);
  const api = (await srv.app.inject({ url: '/v0/events?actor=api' })).json();
  t.same(keys(api.items), ['alpha/6/request.result.city.create']);
  t.equal(api.total, 1);
  t.equal((await srv.app.inject({ url: '/v0/events?actor=api&include=internal' })).json().total, 4);
  const typed = (await srv.app.inject({ url: '/v0/events?type=request.accepted' })).json();
  t.same(keys(typed.items), ['alpha/2/request.accepted'], "only the user's own event of that name");
  t.equal(typed.total, 1);
  const opted = (await srv.app.inject({ url: '/v0/events?type=request.accepted&include=internal' })).json();
  t.equal(opted.total, 4);
  const after = (
    await srv.app.inject({ url: `/v0/events?after_cursor=${encodeURIComponent('__supervisor__:1,alpha:2')}` })
  ).json();
  t.same(keys(after.items), ['__supervisor__/4/supervisor.started', 'alpha/6/request.result.city.create']);
  t.equal(after.total, 2);
});

/** The supervisor-log position of each of the next `n` frames, checking that each id is its own cursor. */
async function supFrames(t: Test, sse: SseClient, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const frame = await sse.nextEvent();
    const seq = JSON.parse(frame.data).seq as number;
    t.equal(frame.id, `__supervisor__:${seq},alpha:2`, `frame of seq ${seq}: its id is the cursor after it`);
    out.push(seq);
  }
  return out;
}

t.test('the supervisor stream sends no frame for a hidden event, but every id counts it', async (t) => {
  const { srv, sup } = await setup(t);
  const cursor = encodeURIComponent('__supervisor__:0,alpha:2');
  const sse = await openSse(`${srv.base}/v0/events/stream?after_cursor=${cursor}`);
  t.equal(sse.status, 200);
  t.same(await supFrames(t, sse, 3), [1, 4, 6]);
  await sup.append({ type: 'supervisor.started', actor: 'gc', payload: { previous_exit: 'crash' } });
  t.same(await supFrames(t, sse, 1), [8], 'the next served event: its id is past the hidden seq 7');
  sse.close();

  const all = await openSse(`${srv.base}/v0/events/stream?after_cursor=${cursor}&include=internal`);
  t.same(await supFrames(t, all, 8), [1, 2, 3, 4, 5, 6, 7, 8], 'opted in: every event');
  all.close();
});

t.test('a resume from any supervisor position neither repeats nor skips a served event', async (t) => {
  const { srv, sup } = await setup(t);
  await sup.append({ type: 'supervisor.started', actor: 'gc', payload: { previous_exit: 'crash' } });
  // Served: 1, 4, 6, 8. Positions 2, 3, 5 and 7 are hidden events (a client that opted in may hold them).
  const next: Record<number, number> = { 0: 1, 1: 4, 2: 4, 3: 4, 4: 6, 5: 6, 6: 8, 7: 8 };
  for (const [from, want] of Object.entries(next)) {
    const sse = await openSse(`${srv.base}/v0/events/stream`, {
      'last-event-id': `__supervisor__:${from},alpha:2`,
    });
    t.same(await supFrames(t, sse, 1), [want], `resumed after ${from}: the next served event is ${want}`);
    sse.close();
  }
});

t.test("city surfaces serve a user's custom event whatever its name", async (t) => {
  const { srv } = await setup(t);
  for (const query of ['', '?include=internal']) {
    const res = await srv.app.inject({ url: `/v0/city/alpha/events${query}` });
    t.equal(res.statusCode, 200);
    t.equal(res.headers['x-gc-index'], '2');
    t.same(
      res.json().items.map((e: Item) => `${e.seq}/${e.type}/${e.actor}`),
      ['2/request.accepted/user', '1/city.created/gc'],
      `list ${query || '(default)'}`,
    );
    const sse = await openSse(`${srv.base}/v0/city/alpha/events/stream${query || '?'}&after_seq=0`);
    const frames = [await sse.nextEvent(), await sse.nextEvent()];
    t.same(
      frames.map((f) => `${f.id}/${JSON.parse(f.data).type}`),
      ['1/city.created', '2/request.accepted'],
      `stream ${query || '(default)'}`,
    );
    sse.close();
  }
});

t.test('include takes only `internal` (or blank), on every event list and stream', async (t) => {
  const { srv } = await setup(t);
  for (const path of [
    '/v0/events',
    '/v0/events/stream',
    '/v0/city/alpha/events',
    '/v0/city/alpha/events/stream',
  ]) {
    const res = await srv.app.inject({ url: `${path}?include=everything` });
    t.equal(res.statusCode, 422, path);
    t.match(res.json(), { detail: 'validation failed', errors: [{ location: 'query.include' }] }, path);
  }
});

t.test('the OpenAPI document offers include=internal on all four routes', async (t) => {
  const { srv } = await setup(t);
  const doc = (await srv.app.inject({ url: '/v0/schema/openapi.json' })).json();
  for (const path of [
    '/v0/events',
    '/v0/events/stream',
    '/v0/city/{cityName}/events',
    '/v0/city/{cityName}/events/stream',
  ]) {
    const params = doc.paths[path].get.parameters as Array<{
      name: string;
      in: string;
      schema: { enum?: string[] };
    }>;
    const include = params.find((p) => p.name === 'include' && p.in === 'query');
    t.ok(include?.schema.enum?.includes('internal'), `${path} documents include=internal`);
  }
});

t.test('the city list pages over served events only: next_cursor and total stay exact', async (t) => {
  const journal = new MemoryJournal('c');
  for (let i = 1; i <= 10; i++) await journal.append({ type: i % 2 ? 'odd' : 'even', actor: 'a' });
  const keep = (e: { type: string }) => e.type === 'odd';
  const seen: number[][] = [];
  let cursor: string | undefined;
  do {
    const { body, head } = await listCityEvents(journal, { limit: 2, keep, ...(cursor ? { cursor } : {}) });
    t.equal(head, 10);
    t.equal(body.total, 10, 'unfiltered: the head');
    seen.push((body.items ?? []).map((e) => e.seq));
    cursor = body.next_cursor;
  } while (cursor !== undefined && seen.length < 5);
  t.same(seen, [[9, 7], [5, 3], [1]], 'full pages of served events, and no next_cursor after the last');
  const filtered = await listCityEvents(journal, { actor: 'a', keep });
  t.equal(filtered.body.total, 5, 'filtered: the served matches');
});

t.test("only types upstream never emits are internal, and never a user's custom event", async (t) => {
  t.same(
    [...INTERNAL_EVENT_TYPES].sort(),
    Object.keys(OUR_EVENT_PAYLOADS).sort(),
    'exactly our own part of the catalogue',
  );
  t.ok(INTERNAL_EVENT_TYPES.has('request.accepted') && INTERNAL_EVENT_TYPES.has('agent.config_changed'));
  for (const type of INTERNAL_EVENT_TYPES) {
    t.notOk(isRegisteredEventType(type), `${type} is not in upstream's catalog`);
    t.ok(isInternalEvent(SUPERVISOR_LOG, { type }));
    t.ok(isInternalEvent('alpha', { type, payload: { request_id: 'r' } }), `a city's own ${type}`);
    t.notOk(isInternalEvent('alpha', { type }), `a city's payload-less ${type} is a user's custom event`);
  }
});
