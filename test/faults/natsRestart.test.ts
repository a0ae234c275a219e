import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { JetStreamJournalBackend } from '../../actors/runtime/journal/jetstreamJournal.ts';
import { supervisorLogFile } from '../../actors/supervisor/supervisorLog.ts';
import { withJetStream } from '../helpers/nats.ts';
import { startSupervisorProcess } from '../helpers/supervisorProcess.ts';
import { Follower } from './follower.ts';
import { faultSeed, rng, sleep } from './kit.ts';
import { outcomeSummary, Traffic } from './traffic.ts';
import {
  catchUp,
  checkSeqs,
  checkStream,
  checkTerminals,
  checkWrites,
  unfinished,
  type Logs,
} from './verify.ts';

/**
 * Fault: the NATS server behind a JetStream-backed supervisor goes away under write load and comes back
 * on the same port and store, twice: a short outage (shorter than the journal's 5 s request timeout, so
 * writes wait for the broker and land) and a long one (writes give up with 503). The broker is stopped
 * gracefully (SIGTERM): a SIGKILLed nats-server may lose acknowledged messages it had not yet synced to
 * disk (its sync interval is two minutes), which is the broker's durability setting, not ours to test.
 * Every write must either land exactly once or be refused with a 503 Problem Details; SSE subscribers must
 * come out of it with no gap and no repeat.
 */
const CORE = ['core-a', 'core-b'];
const OUTAGES_MS = [1500, 7000];

t.test('a NATS restart under load: each write lands once or is refused with a 503 problem', async (t) => {
  const nats = await withJetStream(t);
  if (!nats) return;
  const seed = faultSeed(t);
  const r = rng(seed);
  const sup = await startSupervisorProcess(t, { env: { GC_NATS_URL: nats.url } });
  t.comment(`supervisor child runs from ${sup.entry} on the JetStream journal at ${nats.url}`);
  for (const name of CORE) {
    const reply = await sup.call('POST', '/v0/city', { dir: join(sup.cities, name), start_command: 'true' });
    t.equal(reply.status, 202, `core city ${name} accepted`);
  }
  const deadline = Date.now() + 20_000;
  while (
    (await sup.call('GET', '/v0/cities')).body.items.filter((c: { running: boolean }) => c.running).length < 2
  ) {
    if (Date.now() > deadline) throw new Error('core cities did not start');
    await sleep(50);
  }

  // Every frame of every log, bookkeeping included: checkStream wants each log's events 1..k, gap-free.
  const supStream = new Follower(() => sup.url, '/v0/events/stream?after_cursor=0&include=internal');
  const cityStreams = CORE.map(
    (name) => new Follower(() => sup.url, `/v0/city/${name}/events/stream?after_seq=0`),
  );
  t.teardown(() => Promise.all([supStream, ...cityStreams].map((f) => f.close())));
  const traffic = new Traffic({
    call: (m, p, b) => sup.call(m, p, b),
    up: () => sup.up,
    citiesDir: sup.cities,
    core: CORE,
    rng: r.fork(),
    workers: 6,
    pauseMs: 5,
  });
  traffic.start();
  for (const [k, outage] of OUTAGES_MS.entries()) {
    await sleep(r.int(500, 1500));
    const before = traffic.acknowledged;
    t.comment(
      `fault ${k + 1}/${OUTAGES_MS.length}: nats-server stopped for ${outage} ms (${before} writes acknowledged)`,
    );
    await nats.stop();
    await sleep(outage);
    await nats.start();
    t.comment(`  broker back; ${traffic.acknowledged - before} writes acknowledged across the outage`);
  }
  await sleep(r.int(1000, 2000));
  await traffic.stop();
  const { ledger } = traffic;
  t.comment(`traffic: ${outcomeSummary(ledger)}`);
  t.same(ledger.violations, [], 'every refused write was a Problem Details answer, none a 500');
  t.ok(
    [...ledger.outcomes.keys()].some((k) => k.endsWith(' 503')),
    'the long outage refused writes with 503 (the journal gave up waiting for the broker)',
  );
  t.equal(ledger.unknown, 0, 'no call broke off: the supervisor answered every one');

  // Read every log straight from JetStream, the way the supervisor names them.
  const backend = new JetStreamJournalBackend({ servers: nats.url });
  t.teardown(() => backend.close());
  const readLogs = async (): Promise<Logs> => {
    const logs: Logs = new Map();
    const supervisor = await backend.open({ name: '__supervisor__', file: supervisorLogFile(sup.home) });
    logs.set('__supervisor__', await supervisor.list());
    for (const dir of readdirSync(sup.cities, { withFileTypes: true })) {
      if (!dir.isDirectory()) continue;
      const log = await backend.open({
        name: dir.name,
        file: join(sup.cities, dir.name, '.gc', 'events.jsonl'),
      });
      logs.set(dir.name, await log.list());
    }
    return logs;
  };
  let logs = await readLogs();
  for (let i = 0; i < 100 && unfinished(logs).length > 0; i++) {
    await sleep(100);
    logs = await readLogs();
  }
  t.same(unfinished(logs), [], 'every accepted request finished');
  // Regression: nats.js recreated the ordered consumers with the old pull accounting, and the streams
  // stalled; they must catch up promptly.
  const opts = { timeoutMs: 5000 };
  for (const [i, name] of CORE.entries()) await catchUp(t, cityStreams[i]!, logs, [name], name, opts);
  const listed = (await sup.call('GET', '/v0/cities')).body.items as Array<{ name: string }>;
  await catchUp(t, supStream, logs, ['__supervisor__', ...listed.map((c) => c.name)], undefined, opts);
  await Promise.all([supStream, ...cityStreams].map((f) => f.close()));

  const emitsRefusedButLanded = [...logs.values()]
    .flat()
    .filter((e) => e.type === 'fault.write' && !ledger.emits.has(e.message ?? '')).length;
  t.comment(
    `${emitsRefusedButLanded} emitted events landed although their call was refused with 503 (an append in ` +
      'flight when the connection dropped: the client cannot tell, as with any timeout)',
  );
  checkSeqs(t, logs);
  checkWrites(t, logs, ledger);
  checkTerminals(t, logs, ledger);
  checkStream(t, supStream, logs, 'supervisor stream');
  for (const [i, name] of CORE.entries()) checkStream(t, cityStreams[i]!, logs, `city stream ${name}`, name);
});
