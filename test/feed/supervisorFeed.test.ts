import t from 'tap';
import { parseCursor } from '../../actors/runtime/cursor.ts';
import { feedStart, SupervisorFeed } from '../../actors/runtime/feed/supervisorFeed.ts';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { attach, citiesOf, draft, logOf, RecordingSink } from '../helpers/feed.ts';
import { CountingJournal, FlakyJournal, SlowHeadJournal } from '../helpers/journals.ts';

// The supervisor feed without HTTP: what each item carries, in what order, and how a log's failure stays its own.

t.test(
  'each item carries the whole cursor after it; unserved events are not delivered but move it',
  async (t) => {
    const sup = logOf(SUPERVISOR_LOG, ['hidden', 'sup.one']);
    const alpha = logOf('alpha', ['a.one', 'hidden', 'a.three']);
    const sink = new RecordingSink();
    const feed = new SupervisorFeed(
      { cities: citiesOf(sup, { alpha }), start: new Map(), served: (_log, e) => e.type !== 'hidden' },
      sink,
    );
    t.teardown(() => feed.close());
    feed.start();
    await sink.count(3);
    t.same(
      sink.of('alpha').map((i) => [i.seq, i.type]),
      [
        [1, 'a.one'],
        [3, 'a.three'],
      ],
      'a log is delivered in seq order, its hidden event left out',
    );
    t.same(
      sink.of(SUPERVISOR_LOG).map((i) => i.seq),
      [2],
    );
    for (const item of sink.items) {
      const cursor = parseCursor(item.cursor);
      t.equal(cursor.get(item.log), item.seq, `${item.log}:${item.seq} carries its own position`);
      t.same([...cursor.keys()].sort(), [SUPERVISOR_LOG, 'alpha'], 'every log is in every cursor');
    }
    // Positions never go back, so resuming from any item's cursor neither repeats nor skips.
    for (let i = 1; i < sink.items.length; i++) {
      const before = parseCursor(sink.items[i - 1]!.cursor);
      const after = parseCursor(sink.items[i]!.cursor);
      for (const [log, seq] of before) t.ok(after.get(log)! >= seq, `${log} does not go back`);
    }
    t.equal(feed.cursor, `${SUPERVISOR_LOG}:2,alpha:3`, 'the feed ends past both hidden events');
  },
);

t.test('a resume continues each log after its seq; a log absent from the start replays from 0', async (t) => {
  const sup = logOf(SUPERVISOR_LOG, ['s1', 's2']);
  const alpha = logOf('alpha', ['a1', 'a2', 'a3']);
  const beta = logOf('beta', ['b1']);
  const sink = new RecordingSink();
  const feed = new SupervisorFeed(
    {
      cities: citiesOf(sup, { alpha, beta }),
      start: new Map([
        [SUPERVISOR_LOG, 2],
        ['alpha', 2],
      ]),
    },
    sink,
  );
  t.teardown(() => feed.close());
  feed.start();
  await sink.count(2);
  t.same(
    sink.of('alpha').map((i) => i.seq),
    [3],
  );
  t.same(
    sink.of('beta').map((i) => i.seq),
    [1],
  );
  t.same(sink.of(SUPERVISOR_LOG), []);
  t.equal(feed.cursor, `${SUPERVISOR_LOG}:2,alpha:3,beta:1`);
});

t.test('a city that attaches later joins from seq 0; live appends flow; detach keeps its pair', async (t) => {
  const sup = new MemoryJournal(SUPERVISOR_LOG);
  const cities = citiesOf(sup);
  const sink = new RecordingSink();
  const feed = new SupervisorFeed({ cities, start: new Map([[SUPERVISOR_LOG, 0]]) }, sink);
  t.teardown(() => feed.close());
  feed.start();
  t.same(feed.watching, [SUPERVISOR_LOG]);
  attach(cities, 'late', logOf('late', ['l1', 'l2']));
  await sink.count(2);
  t.same(
    sink.of('late').map((i) => i.seq),
    [1, 2],
  );
  t.equal(sink.items[1]!.cursor, `${SUPERVISOR_LOG}:0,late:2`);
  await sup.append(draft('s.live'));
  await sink.count(3);
  t.same(sink.items[2], {
    log: SUPERVISOR_LOG,
    seq: 1,
    type: 's.live',
    cursor: `${SUPERVISOR_LOG}:1,late:2`,
  });
  cities.remove('late');
  t.same(feed.watching, [SUPERVISOR_LOG], 'a detached city is no longer read');
  t.equal(feed.cursor, `${SUPERVISOR_LOG}:1,late:2`, 'but keeps its pair, so a resume stays exact');
});

t.test('a failing log is retried with backoff while the others flow', async (t) => {
  const sup = logOf(SUPERVISOR_LOG, []);
  const flaky = new FlakyJournal(logOf('flaky', ['f1', 'f2']), Infinity);
  const steady = new MemoryJournal('steady');
  const errors: string[] = [];
  let failed!: () => void;
  const failedTwice = new Promise<void>((r) => (failed = r));
  const sink = new RecordingSink();
  const feed = new SupervisorFeed(
    {
      cities: citiesOf(sup, { flaky, steady }),
      start: new Map(),
      retryMinMs: 1,
      retryMaxMs: 4,
      onError: (log) => {
        errors.push(log);
        if (errors.length === 2) failed();
      },
    },
    sink,
  );
  t.teardown(() => feed.close());
  feed.start();
  await failedTwice;
  await steady.append(draft('s1'));
  await steady.append(draft('s2'));
  await sink.count(2);
  t.same(
    sink.of('steady').map((i) => i.seq),
    [1, 2],
    'the healthy log is not held up',
  );
  t.same(sink.of('flaky'), []);
  t.ok(
    errors.every((log) => log === 'flaky'),
    'only the failing log is reported',
  );
  flaky.failures = 0;
  await sink.count(4);
  t.same(
    sink.of('flaky').map((i) => i.seq),
    [1, 2],
    'the retried log delivers once it recovers',
  );
  t.equal(feed.cursor, `${SUPERVISOR_LOG}:0,flaky:2,steady:2`);
});

t.test(
  'feedStart: a head start leaves a log whose head cannot be read pending; it starts at its head later',
  async (t) => {
    const sup = logOf(SUPERVISOR_LOG, ['s1']);
    const slow = new SlowHeadJournal(logOf('slow', ['x1', 'x2']), 1);
    const cities = citiesOf(sup, { slow });
    const start = await feedStart(cities.logs(), undefined, 1000);
    t.same([...start.start], [[SUPERVISOR_LOG, 1]]);
    t.same([...start.pendingHeads!], ['slow']);
    const sink = new RecordingSink();
    const feed = new SupervisorFeed({ cities, ...start }, sink);
    t.teardown(() => feed.close());
    feed.start();
    await slow.append(draft('x3'));
    await sink.count(1);
    t.same(
      sink.items.map((i) => [i.log, i.seq]),
      [['slow', 3]],
      'the pending log began at its head, not at 0',
    );
    const resumed = await feedStart(cities.logs(), new Map([['slow', 1]]), 1000);
    t.same([...resumed.start], [['slow', 1]]);
    t.equal(resumed.pendingHeads, undefined, 'a resume reads no heads');
  },
);

t.test('close releases every subscription and listener', async (t) => {
  const sup = new CountingJournal(logOf(SUPERVISOR_LOG, ['s1']));
  const alpha = new CountingJournal(logOf('alpha', ['a1']));
  const cities = citiesOf(sup, { alpha });
  const sink = new RecordingSink();
  const feed = new SupervisorFeed({ cities, start: new Map() }, sink);
  feed.start();
  await sink.count(2);
  t.equal(sup.open + alpha.open, 2);
  t.equal(cities.listenerCount, 1);
  feed.close();
  t.equal(sup.open + alpha.open, 0);
  t.equal(cities.listenerCount, 0);
  t.same(feed.watching, []);
});
