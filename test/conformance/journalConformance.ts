import type { Test } from 'tap';
import { SeqConflictError } from '../../actors/runtime/errors.ts';
import type { Journal, JournalBackend, LogLocation } from '../../actors/runtime/journal/journal.ts';
import { batchCases, type ChildBackend } from './batchCases.ts';
import { brokerRestartCases } from './brokerRestart.ts';
import { draft, take, until } from './kit.ts';
import { refusedWriteCases, type BrokerFaults } from './refusedWrites.ts';

export { take };

/**
 * What a backend's test file supplies so that one suite checks every journal backend alike
 * (upstream's eventstest.RunProviderTests, plus fencing, durability, catch-up and concurrency).
 */
export interface JournalHarness {
  /** A new backend over the same durable store each call (a "restart" of the supervisor). */
  backend(): Promise<JournalBackend>;
  /** A fresh, unused log location. */
  location(): LogLocation;
  /** Live resources a closed subscriber must not leave behind (consumers, waiters, timers). */
  liveResources?(journal: Journal): Promise<number>;
  /** Stops and restarts the broker under the backend (jetstream only). */
  restartBroker?(): Promise<void>;
  /** Stalls and restarts the broker under a backend with given timeouts (jetstream only). */
  brokerFaults?: BrokerFaults;
  /** How a writer process opens this backend (the crash case); absent for in-memory backends. */
  child?: ChildBackend;
}

export function journalConformance(t: Test, harness: JournalHarness): void {
  async function fresh(t: Test): Promise<Journal> {
    const backend = await harness.backend();
    t.teardown(() => backend.close());
    return backend.open(harness.location());
  }

  t.test('record and list round trip keeps every field', async (t) => {
    const j = await fresh(t);
    const stored = await j.append({
      type: 'bead.created',
      actor: 'mayor',
      subject: 'gc-1',
      message: 'hello',
      payload: { bead: { id: 'gc-1', issue_type: 'task' } },
    });
    t.equal(stored.seq, 1, 'first seq is 1');
    const [e] = await j.list();
    t.match(e, {
      seq: 1,
      type: 'bead.created',
      actor: 'mayor',
      subject: 'gc-1',
      message: 'hello',
      payload: { bead: { id: 'gc-1', issue_type: 'task' } },
    });
  });

  t.test('append assigns strictly increasing gap-free seqs', async (t) => {
    const j = await fresh(t);
    const seqs = [];
    for (let i = 0; i < 5; i++) seqs.push((await j.append(draft('a'))).seq);
    t.same(seqs, [1, 2, 3, 4, 5]);
  });

  t.test('append fills a missing timestamp with now', async (t) => {
    const j = await fresh(t);
    const e = await j.append(draft('a'));
    t.ok(Math.abs(Date.parse(e.ts) - Date.now()) < 5000, `ts ${e.ts} is within 5s of now`);
    const [listed] = await j.list();
    t.equal(listed?.ts, e.ts, 'the listed ts is the one append returned');
  });

  t.test('append preserves an explicit timestamp', async (t) => {
    const j = await fresh(t);
    await j.append(draft('a', { ts: '2025-06-15T12:00:00Z' }));
    t.equal((await j.list())[0]?.ts, '2025-06-15T12:00:00Z');
  });

  t.test('an empty log lists nothing and has head 0', async (t) => {
    const j = await fresh(t);
    t.same(await j.list(), []);
    t.equal(await j.head(), 0);
  });

  t.test('list filters by type, actor, after-seq, since, and their combination', async (t) => {
    const j = await fresh(t);
    const old = new Date(Date.now() - 2 * 3600_000).toISOString();
    await j.append(draft('bead.created', { actor: 'a', ts: old }));
    await j.append(draft('mail.sent', { actor: 'b' }));
    await j.append(draft('bead.created', { actor: 'b' }));
    t.same(
      (await j.list({ type: 'bead.created' })).map((e) => e.seq),
      [1, 3],
      'type',
    );
    t.same(
      (await j.list({ actor: 'b' })).map((e) => e.seq),
      [2, 3],
      'actor',
    );
    t.same(
      (await j.list({ afterSeq: 1 })).map((e) => e.seq),
      [2, 3],
      'after seq',
    );
    t.same(
      (await j.list({ since: new Date(Date.now() - 3600_000) })).map((e) => e.seq),
      [2, 3],
      'since',
    );
    t.same(
      (await j.list({ type: 'bead.created', afterSeq: 1 })).map((e) => e.seq),
      [3],
      'combined',
    );
    t.same(await j.list({ type: 'nothing.matches' }), [], 'no match is empty, not an error');
  });

  t.test('list pages with limit, newest-first tail and before-seq', async (t) => {
    const j = await fresh(t);
    for (let i = 0; i < 10; i++) await j.append(draft(i % 2 ? 'odd' : 'even'));
    t.same(
      (await j.list({ limit: 3 })).map((e) => e.seq),
      [1, 2, 3],
      'oldest first by default',
    );
    t.same(
      (await j.list({ limit: 3, order: 'desc' })).map((e) => e.seq),
      [10, 9, 8],
      'newest-first tail',
    );
    t.same(
      (await j.list({ limit: 2, order: 'desc', type: 'odd' })).map((e) => e.seq),
      [10, 8],
      'filtered tail',
    );
    t.same(
      (await j.list({ limit: 3, order: 'desc', beforeSeq: 8 })).map((e) => e.seq),
      [7, 6, 5],
      'keyset page below seq 8',
    );
    t.same(
      (await j.list({ afterSeq: 3, beforeSeq: 6 })).map((e) => e.seq),
      [4, 5],
      'a seq window',
    );
  });

  t.test('head equals the latest seq and never decreases', async (t) => {
    const j = await fresh(t);
    let last = await j.head();
    for (let i = 0; i < 4; i++) {
      await j.append(draft('a'));
      const h = await j.head();
      t.ok(h > last, `head ${h} > ${last}`);
      last = h;
    }
    const all = await j.list();
    t.equal(last, all[all.length - 1]?.seq);
  });

  t.test('a stale expected seq is a typed conflict and writes nothing', async (t) => {
    const j = await fresh(t);
    await j.append(draft('a'), { expectedSeq: 0 });
    await j.append(draft('b'), { expectedSeq: 1 });
    await t.rejects(j.append(draft('c'), { expectedSeq: 1 }), SeqConflictError);
    try {
      await j.append(draft('c'), { expectedSeq: 5 });
      t.fail('a future expectation must conflict too');
    } catch (err) {
      t.ok(err instanceof SeqConflictError, 'SeqConflictError');
      t.match(err, { expected: 5, actual: 2 });
    }
    t.equal(await j.head(), 2, 'nothing was written');
    t.same(
      (await j.list()).map((e) => e.type),
      ['a', 'b'],
    );
  });

  t.test('two writers fenced on the same seq: exactly one wins', async (t) => {
    const j = await fresh(t);
    await j.append(draft('a'));
    const results = await Promise.allSettled([
      j.append(draft('x'), { expectedSeq: 1 }),
      j.append(draft('y'), { expectedSeq: 1 }),
    ]);
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'one append lands');
    const rejected = results.find((r) => r.status === 'rejected');
    t.ok(rejected && rejected.reason instanceof SeqConflictError, 'the other is a SeqConflictError');
    t.equal(await j.head(), 2);
  });

  t.test('an append retried with the same msg id is written once', async (t) => {
    const j = await fresh(t);
    const a = await j.append(draft('a'), { msgId: 'req-1' });
    const b = await j.append(draft('a'), { msgId: 'req-1' });
    t.equal(a.seq, b.seq, 'the retry answers with the original seq');
    t.equal(await j.head(), 1);
  });

  t.test('events survive close and reopen, and seqs continue', async (t) => {
    const loc = harness.location();
    const b1 = await harness.backend();
    const j1 = await b1.open(loc);
    await j1.append(draft('a', { payload: { n: 1 } }));
    await j1.append(draft('b'));
    await b1.close();
    const b2 = await harness.backend();
    t.teardown(() => b2.close());
    const j2 = await b2.open(loc);
    t.equal(await j2.head(), 2, 'head rebuilt on open');
    t.same(
      (await j2.list()).map((e) => [e.seq, e.type]),
      [
        [1, 'a'],
        [2, 'b'],
      ],
    );
    t.equal((await j2.append(draft('c'))).seq, 3, 'the next seq follows the reopened head');
  });

  t.test('subscribe yields existing events, then new ones', async (t) => {
    const j = await fresh(t);
    await j.append(draft('old'));
    const sub = j.subscribe(0);
    t.teardown(() => sub.close());
    setTimeout(() => void j.append(draft('new')), 50);
    const got = await take(sub, 2);
    t.same(
      got.map((e) => [e.seq, e.type]),
      [
        [1, 'old'],
        [2, 'new'],
      ],
    );
  });

  t.test('subscribe after a seq skips what came before', async (t) => {
    const j = await fresh(t);
    await j.append(draft('a'));
    await j.append(draft('b'));
    const sub = j.subscribe(2);
    t.teardown(() => sub.close());
    await j.append(draft('c'));
    const [e] = await take(sub, 1);
    t.equal(e?.seq, 3);
    t.equal(e?.type, 'c');
  });

  t.test('a subscriber that starts in the past catches up into live events in order', async (t) => {
    const j = await fresh(t);
    for (let i = 0; i < 200; i++) await j.append(draft('past'));
    const sub = j.subscribe(50);
    t.teardown(() => sub.close());
    const writer = (async () => {
      for (let i = 0; i < 100; i++) await j.append(draft('live'));
    })();
    const got = await take(sub, 250, 15000);
    await writer;
    t.same(
      got.map((e) => e.seq),
      Array.from({ length: 250 }, (_, i) => i + 51),
      'seqs 51..300 exactly once each, in order',
    );
  });

  t.test('closing a subscription ends iteration cleanly and leaves nothing behind', async (t) => {
    const j = await fresh(t);
    const before = harness.liveResources ? await harness.liveResources(j) : 0;
    const sub = j.subscribe(0);
    await j.append(draft('a'));
    const consumed: number[] = [];
    const done = (async () => {
      for await (const e of sub) consumed.push(e.seq);
    })();
    // Closed while the loop waits for a second event, once it has seen the first.
    await until(() => consumed.length > 0, 'the subscription to yield the appended event');
    await sub.close();
    await done;
    t.same(consumed, [1], 'iteration saw the event, then ended without throwing');
    await j.append(draft('b'));
    if (harness.liveResources) {
      t.equal(await harness.liveResources(j), before, 'no consumer, waiter or timer is left');
    }
  });

  t.test('breaking out of a for-await loop releases the subscription', async (t) => {
    const j = await fresh(t);
    const before = harness.liveResources ? await harness.liveResources(j) : 0;
    await j.append(draft('a'));
    await j.append(draft('b'));
    const seen: number[] = [];
    for await (const e of j.subscribe(0)) {
      seen.push(e.seq);
      if (e.seq === 1) break;
    }
    t.same(seen, [1]);
    if (harness.liveResources) t.equal(await harness.liveResources(j), before, 'nothing is left behind');
  });

  t.test('pipelined fenced appends are judged in the order they were issued', async (t) => {
    const j = await fresh(t);
    const results = await Promise.allSettled([
      j.append(draft('a'), { expectedSeq: 0 }),
      j.append(draft('b'), { expectedSeq: 1 }),
      j.append(draft('c'), { expectedSeq: 1 }),
      j.append(draft('d'), { expectedSeq: 2 }),
    ]);
    t.same(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    const third = results[2];
    t.ok(third?.status === 'rejected' && third.reason instanceof SeqConflictError, 'the stale one conflicts');
    t.same(
      (await j.list()).map((e) => e.type),
      ['a', 'b', 'd'],
    );
  });

  t.test('two appends with one msg id issued together land once', async (t) => {
    const j = await fresh(t);
    const [a, b] = await Promise.all([
      j.append(draft('a'), { msgId: 'same' }),
      j.append(draft('a'), { msgId: 'same' }),
    ]);
    t.equal(a.seq, b.seq);
    t.equal(await j.head(), 1);
  });

  t.test('closing the journal ends its subscriptions', async (t) => {
    const backend = await harness.backend();
    const j = await backend.open(harness.location());
    const sub = j.subscribe(0);
    const seen: number[] = [];
    let delivered!: () => void;
    const first = new Promise<void>((resolve) => (delivered = resolve));
    const done = (async () => {
      for await (const e of sub) {
        seen.push(e.seq);
        delivered();
      }
    })();
    await j.append(draft('a'));
    // Close only once the event is in hand, so the case checks the ending and not a race with delivery.
    await first;
    await backend.close();
    await done;
    t.same(seen, [1]);
  });

  t.test('10 concurrent writers x 100 appends get unique gap-free seqs', async (t) => {
    const j = await fresh(t);
    const writers = Array.from({ length: 10 }, async (_, w) => {
      const seqs: number[] = [];
      for (let i = 0; i < 100; i++) seqs.push((await j.append(draft('w', { actor: `w${w}` }))).seq);
      return seqs;
    });
    const all = (await Promise.all(writers)).flat().sort((a, b) => a - b);
    t.same(
      all,
      Array.from({ length: 1000 }, (_, i) => i + 1),
      'seqs are exactly 1..1000',
    );
    t.equal(await j.head(), 1000);
    const listed = await j.list();
    t.equal(listed.length, 1000);
    for (let w = 0; w < 10; w++) {
      const mine = listed.filter((e) => e.actor === `w${w}`).map((e) => e.seq);
      t.ok(
        mine.every((s, i) => i === 0 || s > mine[i - 1]!),
        `writer ${w}'s events are in its own order`,
      );
    }
  });

  batchCases(t, fresh, harness);
  if (harness.restartBroker) brokerRestartCases(t, fresh, harness.restartBroker);
  if (harness.brokerFaults) refusedWriteCases(t, harness.brokerFaults);
}
