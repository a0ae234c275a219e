import t from 'tap';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { eventsServer, until } from '../helpers/eventsServer.ts';
import { CountingJournal } from '../helpers/journals.ts';
import { openSse } from '../helpers/sse.ts';

const draft = (i: number) => ({ type: 'test.tick', actor: 'tester', subject: `s${i}`, payload: { i } });

async function seeded(n: number, name = 'alpha') {
  const journal = new CountingJournal(new MemoryJournal(name));
  for (let i = 1; i <= n; i++) await journal.append(draft(i));
  return journal;
}

t.test('commits SSE headers at once and writes `id/event/data` frames with compact JSON', async (t) => {
  const srv = await eventsServer(t);
  const journal = srv.addCity('alpha', await seeded(2));
  const sse = await openSse(`${srv.base}/v0/city/alpha/events/stream`, { 'last-event-id': '1' });
  t.equal(sse.status, 200);
  t.match(sse.headers['content-type'], /^text\/event-stream/);
  t.equal(sse.headers['cache-control'], 'no-cache');
  t.equal(sse.headers.connection, 'keep-alive');
  t.match(sse.headers['x-gc-request-id'], /^[0-9a-f]{16}$/);
  const frame = await sse.nextEvent();
  const data = JSON.parse(frame.data);
  t.equal(frame.raw, `id: 2\nevent: event\ndata: ${JSON.stringify(data)}\n\n`, 'exact layout');
  t.same(Object.keys(data), ['seq', 'type', 'ts', 'actor', 'subject', 'payload'], 'upstream field order');
  t.same(data.payload, { i: 2 });
  await journal.append({ type: 'session.woke', actor: 'a' });
  const next = JSON.parse((await sse.nextEvent()).data);
  t.same(next.payload, {}, 'payload is always present, {} when absent');
  sse.close();
});

t.test('headers go out before any event exists (flushed on open)', async (t) => {
  const srv = await eventsServer(t);
  srv.addCity('alpha');
  const opened = await Promise.race([
    openSse(`${srv.base}/v0/city/alpha/events/stream`),
    new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 2000)),
  ]);
  t.not(opened, 'timeout', 'the 200 arrived with no event to send');
  if (opened !== 'timeout') opened.close();
});

t.test('with no resume value the stream starts at the head: only future events', async (t) => {
  const srv = await eventsServer(t);
  const journal = srv.addCity('alpha', await seeded(3));
  const sse = await openSse(`${srv.base}/v0/city/alpha/events/stream`);
  await journal.append(draft(4));
  t.equal((await sse.nextEvent()).id, '4');
  sse.close();
});

t.test('after_seq=0 replays everything; after_seq=N resumes after N', async (t) => {
  const srv = await eventsServer(t);
  srv.addCity('alpha', await seeded(3));
  const all = await openSse(`${srv.base}/v0/city/alpha/events/stream?after_seq=0`);
  t.same(
    [(await all.nextEvent()).id, (await all.nextEvent()).id, (await all.nextEvent()).id],
    ['1', '2', '3'],
  );
  all.close();
  const tail = await openSse(`${srv.base}/v0/city/alpha/events/stream?after_seq=2`);
  t.equal((await tail.nextEvent()).id, '3');
  tail.close();
});

t.test('Last-Event-ID wins over after_seq', async (t) => {
  const srv = await eventsServer(t);
  srv.addCity('alpha', await seeded(3));
  const sse = await openSse(`${srv.base}/v0/city/alpha/events/stream?after_seq=0`, { 'last-event-id': '2' });
  t.equal((await sse.nextEvent()).id, '3');
  sse.close();
});

t.test('a non-numeric after_seq or Last-Event-ID is a 400 problem, not a replay from zero', async (t) => {
  const srv = await eventsServer(t);
  srv.addCity('alpha', await seeded(1));
  for (const [query, headers] of [
    ['?after_seq=abc', {}],
    ['?after_seq=-1', {}],
    ['', { 'last-event-id': 'foo' }],
    ['?after_seq=1', { 'last-event-id': '1.5' }],
  ] as const) {
    const sse = await openSse(`${srv.base}/v0/city/alpha/events/stream${query}`, headers);
    t.equal(sse.status, 400, `${query} ${JSON.stringify(headers)}`);
    t.match(sse.headers['content-type'], /^application\/problem\+json/);
    t.match(JSON.parse(sse.body), { status: 400, detail: /^invalid: (after_seq|Last-Event-ID) must be/ });
  }
});

t.test('an unknown or not-running city is a 404 problem before any 200', async (t) => {
  const srv = await eventsServer(t);
  srv.addCity('starting', new MemoryJournal('starting'), false);
  for (const name of ['nowhere', 'starting']) {
    const sse = await openSse(`${srv.base}/v0/city/${name}/events/stream`);
    t.equal(sse.status, 404);
    t.equal(JSON.parse(sse.body).detail, `not_found: city not found or not running: ${name}`);
    t.match(sse.headers['x-gc-request-id'], /^[0-9a-f]{16}$/);
  }
});

t.test('the first frame is a heartbeat sent with the headers, before the replay', async (t) => {
  const srv = await eventsServer(t, { heartbeatMs: 600_000 });
  srv.addCity('alpha', await seeded(1));
  const idle = await openSse(`${srv.base}/v0/city/alpha/events/stream`);
  t.equal(
    (await idle.next(5000)).event,
    'heartbeat',
    'an idle stream is live at once, not after an interval',
  );
  idle.close();
  const replay = await openSse(`${srv.base}/v0/city/alpha/events/stream?after_seq=0`);
  t.same([(await replay.next(5000)).event, (await replay.next(5000)).id], ['heartbeat', '1']);
  replay.close();
  const all = await openSse(`${srv.base}/v0/events/stream`);
  t.equal((await all.next(5000)).event, 'heartbeat', 'the supervisor stream too');
  all.close();
});

t.test('heartbeats arrive on schedule and carry no id', async (t) => {
  const srv = await eventsServer(t, { heartbeatMs: 40 });
  srv.addCity('alpha', await seeded(1));
  const sse = await openSse(`${srv.base}/v0/city/alpha/events/stream?after_seq=0`);
  t.equal((await sse.next()).event, 'heartbeat', 'the one sent on open');
  t.equal((await sse.next()).id, '1');
  const beat = await sse.next();
  t.equal(beat.event, 'heartbeat');
  t.equal(beat.id, undefined);
  t.match(beat.raw, /^event: heartbeat\ndata: \{"timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\}\n\n$/);
  sse.close();
});

t.test('a client that disconnects leaves no subscription, listener, timer or stream behind', async (t) => {
  const srv = await eventsServer(t, { heartbeatMs: 20 });
  const journal = srv.addCity('alpha', await seeded(5)) as CountingJournal;
  const listeners = srv.cities.listenerCount;
  for (let i = 0; i < 20; i++) {
    const sse = await openSse(`${srv.base}/v0/city/alpha/events/stream?after_seq=0`);
    await sse.nextEvent();
    sse.close();
  }
  await until(() => journal.open === 0 && srv.streams.size === 0, 2000, 'streams to close');
  t.equal(journal.opened, 20);
  t.equal(srv.cities.listenerCount, listeners, 'no LiveCities listener left');
});

t.test('the stream ends when its city detaches, and the reconnect gets the 404', async (t) => {
  const srv = await eventsServer(t);
  srv.addCity('alpha', await seeded(1));
  const sse = await openSse(`${srv.base}/v0/city/alpha/events/stream`);
  srv.cities.remove('alpha');
  await sse.ended;
  t.equal(srv.streams.size, 0);
  const again = await openSse(`${srv.base}/v0/city/alpha/events/stream`);
  t.equal(again.status, 404);
});

t.test('closing the app ends open streams instead of waiting for their clients', async (t) => {
  const srv = await eventsServer(t);
  srv.addCity('alpha');
  const sse = await openSse(`${srv.base}/v0/city/alpha/events/stream`);
  const closed = srv.app.close();
  await sse.ended;
  await closed;
  t.equal(srv.streams.size, 0);
});
