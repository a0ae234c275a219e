import t from 'tap';
import { parseCursor } from '../../actors/runtime/cursor.ts';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { eventsServer, until } from '../helpers/eventsServer.ts';
import { CountingJournal, FlakyJournal, SlowHeadJournal, StalledJournal } from '../helpers/journals.ts';
import { openSse, type SseClient } from '../helpers/sse.ts';

const tick = (subject: string) => ({ type: 'test.tick', actor: 'tester', subject });

async function seeded(name: string, n: number) {
  const journal = new CountingJournal(new MemoryJournal(name));
  for (let i = 1; i <= n; i++) await journal.append(tick(`${name}-${i}`));
  return journal;
}

/** Reads `n` tagged events and returns `[city, seq, id]` of each. */
async function take(sse: SseClient, n: number): Promise<Array<{ city: string; seq: number; id: string }>> {
  const out = [];
  for (let i = 0; i < n; i++) {
    const frame = await sse.nextEvent();
    const data = JSON.parse(frame.data);
    out.push({ city: data.city as string, seq: data.seq as number, id: frame.id! });
  }
  return out;
}

t.test('503 no_providers while no city is attached; the supervisor log alone does not count', async (t) => {
  const srv = await eventsServer(t);
  await srv.cities.supervisorLog.append(tick('boot'));
  const sse = await openSse(`${srv.base}/v0/events/stream`);
  t.equal(sse.status, 503);
  t.match(sse.headers['content-type'], /^application\/problem\+json/);
  t.equal(JSON.parse(sse.body).detail, 'no_providers: no event providers available');
  srv.addCity('starting', new MemoryJournal('starting'), false);
  const ok = await openSse(`${srv.base}/v0/events/stream`);
  t.equal(ok.status, 200, 'a transient (not yet running) city is a provider');
  ok.close();
});

t.test('a malformed cursor is a 400 problem before any 200, by header or by query', async (t) => {
  const srv = await eventsServer(t);
  srv.addCity('alpha');
  for (const [query, headers] of [
    ['?after_cursor=garbage', {}],
    ['?after_cursor=alpha:x', {}],
    ['?after_cursor=:3', {}],
    ['?after_cursor=alpha:1,alpha:2', {}],
    ['', { 'last-event-id': 'alpha:1,' }],
  ] as const) {
    const sse = await openSse(`${srv.base}/v0/events/stream${query}`, headers);
    t.equal(sse.status, 400, `${query} ${JSON.stringify(headers)}`);
    t.match(
      JSON.parse(sse.body).detail,
      /^invalid: (after_cursor|Last-Event-ID) is not a valid event cursor/,
    );
  }
});

t.test('with no resume value the stream starts at every head, and ids are whole cursors', async (t) => {
  const srv = await eventsServer(t);
  const alpha = srv.addCity('alpha', await seeded('alpha', 3));
  srv.addCity('beta', await seeded('beta', 2));
  await srv.cities.supervisorLog.append(tick('boot'));
  const sse = await openSse(`${srv.base}/v0/events/stream`);
  t.equal(sse.status, 200);
  await alpha.append(tick('new'));
  const frame = await sse.nextEvent();
  t.equal(frame.id, '__supervisor__:1,alpha:4,beta:2');
  t.match(frame.raw, /^id: [^\n]+\nevent: tagged_event\ndata: \{[^\n]+\}\n\n$/);
  t.match(JSON.parse(frame.data), { seq: 4, city: 'alpha', subject: 'new', payload: {} });
  sse.close();
});

t.test(
  'after_cursor=0 replays every log; a city absent from the cursor replays from its start',
  async (t) => {
    const srv = await eventsServer(t);
    srv.addCity('alpha', await seeded('alpha', 2));
    srv.addCity('beta', await seeded('beta', 2));
    const all = await openSse(`${srv.base}/v0/events/stream?after_cursor=0`);
    const got = await take(all, 4);
    t.same(got.map((e) => `${e.city}:${e.seq}`).sort(), ['alpha:1', 'alpha:2', 'beta:1', 'beta:2']);
    t.same(
      parseCursor(got.at(-1)!.id),
      new Map([
        ['__supervisor__', 0],
        ['alpha', 2],
        ['beta', 2],
      ]),
    );
    all.close();

    const partial = await openSse(
      `${srv.base}/v0/events/stream?after_cursor=${encodeURIComponent('alpha:2')}`,
    );
    const beta = await take(partial, 2);
    t.same(
      beta.map((e) => `${e.city}:${e.seq}`),
      ['beta:1', 'beta:2'],
      'beta was absent: replayed from 1',
    );
    t.equal(partial.buffered, 0, 'nothing of alpha replayed');
    partial.close();
  },
);

t.test('Last-Event-ID wins over after_cursor, and unknown names are echoed in every id', async (t) => {
  const srv = await eventsServer(t);
  srv.addCity('alpha', await seeded('alpha', 3));
  const sse = await openSse(`${srv.base}/v0/events/stream?after_cursor=0`, {
    'last-event-id': '__supervisor__:0,alpha:2,gone:7',
  });
  const [e] = await take(sse, 1);
  t.same([e!.city, e!.seq], ['alpha', 3]);
  t.equal(e!.id, '__supervisor__:0,alpha:3,gone:7');
  sse.close();
});

t.test(
  'supervisor request results are tagged with the city they concern; the cursor key stays __supervisor__',
  async (t) => {
    const srv = await eventsServer(t);
    srv.addCity('other');
    const sse = await openSse(`${srv.base}/v0/events/stream`);
    const sup = srv.cities.supervisorLog;
    await sup.append({
      type: 'request.result.city.create',
      actor: 'api',
      subject: 'mc-city',
      payload: { request_id: 'req-1', name: 'mc-city', path: '/c/mc-city' },
    });
    await sup.append({
      type: 'request.failed',
      actor: 'api',
      payload: {
        request_id: 'req-2',
        operation: 'city.unregister',
        error_code: 'x',
        error_message: 'y',
        name: 'gone',
      },
    });
    await sup.append({ type: 'supervisor.started', actor: 'gc', payload: { previous_exit: 'clean' } });
    const frames = await take(sse, 3);
    t.same(
      frames.map((f) => f.city),
      ['mc-city', 'gone', '__supervisor__'],
    );
    t.equal(frames[0]!.id, '__supervisor__:1,other:0');
    sse.close();
  },
);

t.test(
  'a city that attaches mid-stream joins it from seq 0; one that detaches keeps its cursor pair',
  async (t) => {
    const srv = await eventsServer(t);
    srv.addCity('alpha', await seeded('alpha', 1));
    const sse = await openSse(`${srv.base}/v0/events/stream`);
    const gamma = await seeded('gamma', 2);
    srv.addCity('gamma', gamma);
    const joined = await take(sse, 2);
    t.same(
      joined.map((e) => `${e.city}:${e.seq}`),
      ['gamma:1', 'gamma:2'],
      'its history before attaching too',
    );
    t.equal(joined[1]!.id, '__supervisor__:0,alpha:1,gamma:2');
    srv.cities.remove('gamma');
    await until(() => gamma.open === 0, 2000, 'gamma subscription to close');
    await gamma.append(tick('after-detach'));
    await (srv.cities.get('alpha')!.journal as CountingJournal).append(tick('alpha-2'));
    const [next] = await take(sse, 1);
    t.same([next!.city, next!.seq], ['alpha', 2], 'the detached city is no longer read');
    t.equal(next!.id, '__supervisor__:0,alpha:2,gamma:2', 'but its pair stays in the cursor');
    sse.close();
  },
);

t.test('a city already in the cursor resumes from its pair when it attaches', async (t) => {
  const srv = await eventsServer(t);
  srv.addCity('alpha');
  const sse = await openSse(
    `${srv.base}/v0/events/stream?after_cursor=${encodeURIComponent('alpha:0,gamma:1')}`,
  );
  srv.addCity('gamma', await seeded('gamma', 3));
  const got = await take(sse, 2);
  t.same(
    got.map((e) => e.seq),
    [2, 3],
  );
  sse.close();
});

t.test('a stalled city does not block the others', async (t) => {
  const srv = await eventsServer(t);
  const stalled = new StalledJournal(new MemoryJournal('stuck'));
  srv.addCity('stuck', stalled);
  const alpha = srv.addCity('alpha');
  const sse = await openSse(`${srv.base}/v0/events/stream`);
  for (let i = 0; i < 50; i++) await alpha.append(tick(`a${i}`));
  const got = await take(sse, 50);
  t.equal(got.length, 50);
  t.ok(got.every((e) => e.city === 'alpha'));
  sse.close();
  await until(() => stalled.open === 0, 2000, 'the stalled subscription to be released');
});

t.test('a failing city is retried without disturbing the others', async (t) => {
  const srv = await eventsServer(t);
  const flaky = new FlakyJournal(await seeded('flaky', 2), 2);
  srv.addCity('flaky', flaky);
  const alpha = srv.addCity('alpha');
  const sse = await openSse(`${srv.base}/v0/events/stream?after_cursor=0`);
  await alpha.append(tick('a1'));
  const got = await take(sse, 3);
  t.same(got.map((e) => `${e.city}:${e.seq}`).sort(), ['alpha:1', 'flaky:1', 'flaky:2']);
  t.ok(flaky.opened >= 3, 'the flaky log was subscribed again after failing');
  sse.close();
});

t.test('a disconnect releases every subscription, LiveCities listener and stream', async (t) => {
  const srv = await eventsServer(t, { heartbeatMs: 15 });
  const sup = new CountingJournal(srv.cities.supervisorLog);
  // Swap the supervisor log for a counting view of it: the stream reads `cities.logs()`.
  Object.defineProperty(srv.cities, 'supervisorLog', { value: sup });
  const alpha = srv.addCity('alpha', await seeded('alpha', 3));
  const beta = srv.addCity('beta', await seeded('beta', 3));
  const listeners = srv.cities.listenerCount;
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();
  for (let i = 0; i < 20; i++) {
    const sse = await openSse(`${srv.base}/v0/events/stream?after_cursor=0`);
    await take(sse, 2);
    sse.close();
  }
  await until(() => srv.streams.size === 0, 2000, 'streams to close');
  await until(
    () => sup.open + (alpha as CountingJournal).open + (beta as CountingJournal).open === 0,
    2000,
    'subs',
  );
  t.equal(srv.cities.listenerCount, listeners, 'no LiveCities listener left');
  t.ok(timers() <= before, `no timer left (${timers()} now, ${before} before)`);
  // Each stream read the log by itself (a resume), and the tail, restarted for each (none overlapped), once.
  t.equal(sup.opened, 40);
});

t.test('the supervisor stream keeps the supervisor log as its cursor key', async (t) => {
  const srv = await eventsServer(t);
  srv.addCity('zeta');
  const sse = await openSse(`${srv.base}/v0/events/stream`);
  await srv.cities.supervisorLog.append(tick('s'));
  const [e] = await take(sse, 1);
  t.equal(e!.city, SUPERVISOR_LOG);
  t.equal(e!.id, '__supervisor__:1,zeta:0');
  sse.close();
});

t.test(
  'a head start is not held up by a log whose head never answers, nor failed by one whose head fails',
  async (t) => {
    const srv = await eventsServer(t);
    srv.addCity('stuck', new SlowHeadJournal(await seeded('stuck', 3), Infinity));
    const flaky = new SlowHeadJournal(await seeded('flaky', 3), 1);
    srv.addCity('flaky', flaky);
    const alpha = srv.addCity('alpha', await seeded('alpha', 2));
    const started = Date.now();
    const sse = await openSse(`${srv.base}/v0/events/stream`);
    t.equal(sse.status, 200);
    t.ok(Date.now() - started < 5000, 'opened after a bounded wait');
    await alpha.append(tick('a3'));
    const [first] = await take(sse, 1);
    t.same([first!.city, first!.seq], ['alpha', 3], 'nothing replayed from the logs whose head was unknown');
    t.notMatch(first!.id, /stuck/, 'a log whose head is unknown is absent from the cursor');
    await until(() => flaky.opened > 0, 3000, 'the failing head to be read again');
    await flaky.append(tick('f4'));
    const [second] = await take(sse, 1);
    t.same([second!.city, second!.seq], ['flaky', 4], 'the log whose head failed joins at its head');
    t.equal(second!.id, '__supervisor__:0,alpha:3,flaky:4');
    sse.close();
  },
);
