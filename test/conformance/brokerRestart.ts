import type { Test } from 'tap';
import type { Journal } from '../../actors/runtime/journal/journal.ts';
import { draft, take } from './kit.ts';

/**
 * The conformance cases of a journal whose broker can go away (JetStream): a restart with a subscription
 * open, and one with appends in flight. `fresh` opens an unused log; `restart` stops and starts the broker.
 */
export function brokerRestartCases(
  t: Test,
  fresh: (t: Test) => Promise<Journal>,
  restart: () => Promise<void>,
): void {
  t.test('a broker restart mid-subscription resumes without gaps or duplicates', async (t) => {
    const j = await fresh(t);
    for (let i = 0; i < 20; i++) await j.append(draft('before'));
    const sub = j.subscribe(0);
    t.teardown(() => sub.close());
    const first = await take(sub, 20);
    await restart();
    const writer = (async () => {
      for (let i = 0; i < 20; i++) {
        for (let attempt = 0; ; attempt++) {
          try {
            await j.append(draft('after'), { msgId: `after-${i}` });
            break;
          } catch (err) {
            if (attempt > 100) throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      }
    })();
    const rest = await take(sub, 20, 30000);
    await writer;
    t.same(
      [...first, ...rest].map((e) => e.seq),
      Array.from({ length: 40 }, (_, i) => i + 1),
      'seqs 1..40 exactly once, in order',
    );
  });

  t.test('a broker restart with appends in flight: live subscriptions keep up, promptly', async (t) => {
    // The subscriptions have pulls outstanding when the connection drops; a client that carries that
    // accounting over to the recreated consumer stalls here (nats.js does; the journal must not).
    const j = await fresh(t);
    const subs = [j.subscribe(0), j.subscribe(0), j.subscribe(0)];
    t.teardown(() => Promise.all(subs.map((s) => s.close())));
    const seen = subs.map(() => [] as number[]);
    const reading = subs.map(async (sub, i) => {
      for await (const e of sub) seen[i]!.push(e.seq);
    });
    let writing = true;
    let refused = 0;
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; writing; i++) {
        for (let attempt = 0; ; attempt++) {
          try {
            await j.append(draft('load'), { msgId: `load-${w}-${i}` });
            break;
          } catch (err) {
            refused++;
            if (attempt > 100) throw err;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    });
    const atLeast = async (n: number, ms: number): Promise<boolean> => {
      const deadline = Date.now() + ms;
      while (seen.some((s) => s.length < n)) {
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
      return true;
    };
    t.ok(await atLeast(200, 10000), 'events flow to every subscription before the fault');
    await restart();
    const afterRestart = await j.head();
    // The load goes on until it has landed well past the restart (or 30 s passed), however long the reconnect.
    const deadline = Date.now() + 30_000;
    for (let landed = afterRestart; landed < afterRestart + 100 && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 20));
      landed = await j.head().catch(() => landed);
    }
    writing = false;
    await Promise.all(writers);
    const head = await j.head();
    t.ok(
      head > afterRestart,
      `appends landed after the restart (${afterRestart} → ${head}; ${refused} retried)`,
    );
    t.ok(await atLeast(head, 5000), `within 5 s every subscription reached the head ${head}`);
    const expected = Array.from({ length: head }, (_, i) => i + 1);
    for (const [i, s] of seen.entries()) {
      t.same(s.slice(0, head), expected, `subscription ${i + 1}: seqs 1..${head} exactly once, in order`);
    }
    await Promise.all(subs.map((s) => s.close()));
    await Promise.all(reading);
  });
}
