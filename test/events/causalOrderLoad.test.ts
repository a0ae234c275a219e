import { join } from 'node:path';
import t, { type Test } from 'tap';
import { openJournalBackend } from '../../actors/runtime/journal/openBackend.ts';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { formatCursor } from '../../schemas/compositeCursor.ts';
import { causalAcceptance, FlowReader } from '../helpers/causalLoad.ts';
import { withJetStream } from '../helpers/nats.ts';
import { startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

/**
 * Issue 33's acceptance on a real supervisor, both journals: creates, each followed by its unregister,
 * several in flight at once, read on the supervisor stream from the head (opened before the first of those
 * cities existed) and resumed from cursors taken while the load runs and after it: every city's
 * `city.created` and `controller.started` come before its `request.result.city.create`, its
 * `controller.stopped` before its `request.result.city.unregister`, every event exactly once. The city
 * log is closed at detach; the stream reads it on for the grace (cityDetach.ts). The suite runs
 * `GC_CAUSAL_CITIES` creates (default 30); bench/causalOrder.ts runs 1,000.
 */

const CITIES = Number(process.env.GC_CAUSAL_CITIES ?? 30);

/** A random source with a seed, so a failure can be replayed (the seed is printed). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function acceptance(t: Test, natsUrl: string | undefined): Promise<void> {
  const s = await startTestSupervisor(t, { tickMs: 50, ...(natsUrl ? { natsUrl } : {}) });
  const seedDir = join(s.root, 'seed');
  const seed = await s.call('POST', '/v0/city', { dir: seedDir, start_command: 'true' });
  t.equal(seed.status, 202);
  await waitForTerminal(s.log, seed.body.request_id, 20_000);
  await s.running.supervisor.settled();
  const sup = s.running.supervisor;
  const headStart = formatCursor(
    new Map([
      [SUPERVISOR_LOG, await s.log.head()],
      ['seed', await sup.live.get('seed')!.journal.head()],
    ]),
  );
  // Quiet now (the seed settled): the head stream starts exactly at these heads.
  const head = await FlowReader.open(s.url);
  const verify = openJournalBackend({ natsUrl });
  t.teardown(() => verify.close());
  const seedNumber = Date.now() % 1_000_000;
  t.comment(`random seed ${seedNumber}`);
  const result = await causalAcceptance(head, {
    client: { url: s.url, log: s.log, call: s.call },
    verify,
    names: Array.from({ length: CITIES }, (_, i) => `c${i}`),
    concurrency: 6,
    root: s.root,
    resumesDuring: 6,
    resumesAfter: 4,
    random: seeded(seedNumber),
    headStart,
    others: new Map([['seed', seedDir]]),
    mux: () => new Set(sup.live.logs().keys()),
  });
  await head.close();
  t.comment(`${result.streams} streams, ${result.frames} frames, ${result.ms} ms`);
  t.same(Object.fromEntries(result.problems), {}, 'every stream: causal order, exactly once');
  t.equal(result.streams, 11, 'the head stream and ten resumed ones were read');
  t.same(sup.live.list(), [sup.live.get('seed')].filter(Boolean), 'only the seed city is left attached');
}

t.test('file journal', (t) => acceptance(t, undefined));

t.test('JetStream', async (t) => {
  const nats = await withJetStream(t);
  if (!nats) return;
  await acceptance(t, nats.url);
});
