import { join } from 'node:path';
import t from 'tap';
import { startSupervisorProcess } from '../helpers/supervisorProcess.ts';
import { Follower } from './follower.ts';
import { faultSeed, logFiles, readRawLog, rng, sleep } from './kit.ts';
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
 * Fault: the supervisor process is SIGKILLed at seeded random moments while clients create and unregister
 * cities, emit events, write beads and follow SSE streams; it is restarted on the same $GC_HOME each time.
 * The file journal is the backend (the embedded default). After the last restart the logs on disk must
 * hold every acknowledged write exactly once, each log's seqs must be 1..head and extend the snapshot taken
 * just before each kill, each accepted request must have exactly one terminal event, and every stream must
 * have resumed from its Last-Event-ID without a gap or a repeat.
 */
const KILLS = Number(process.env.GC_FAULT_KILLS ?? 4);
const CORE = ['core-a', 'core-b'];

/** Every log on disk, complete lines only (what a reader sees while the supervisor runs or after it died). */
function snapshot(gcHome: string, citiesDir: string): Logs {
  const logs: Logs = new Map();
  for (const [name, file] of logFiles(gcHome, citiesDir)) logs.set(name, readRawLog(file).events);
  return logs;
}

t.test(
  'a supervisor SIGKILLed at random points during mixed traffic loses and repeats nothing',
  async (t) => {
    const seed = faultSeed(t);
    const r = rng(seed);
    const sup = await startSupervisorProcess(t);
    t.comment(`supervisor child runs from ${sup.entry}; file journal under ${sup.home}`);

    for (const name of CORE) {
      const reply = await sup.call('POST', '/v0/city', {
        dir: join(sup.cities, name),
        start_command: 'true',
      });
      t.equal(reply.status, 202, `core city ${name} accepted`);
    }
    const deadline = Date.now() + 20_000;
    while (
      (await sup.call('GET', '/v0/cities')).body.items.filter((c: { running: boolean }) => c.running).length <
      2
    ) {
      if (Date.now() > deadline) throw new Error('core cities did not start');
      await sleep(50);
    }
    const probe = await sup.call('POST', `/v0/city/${CORE[0]}/beads`, { title: 'probe' });
    t.comment(
      probe.status === 201
        ? 'bead writes are served by this supervisor'
        : `bead writes answer ${probe.status} (${probe.body?.detail}): they count as refused writes`,
    );

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
    });
    traffic.start();

    const snapshots: Logs[] = [];
    for (let k = 1; k <= KILLS; k++) {
      const after = r.int(300, 1500);
      await sleep(after);
      const before = snapshot(sup.home, sup.cities);
      snapshots.push(before);
      const events = [...before.values()].reduce((n, e) => n + e.length, 0);
      t.comment(
        `fault ${k}/${KILLS}: SIGKILL pid ${sup.pid} ${after} ms into the run ` +
          `(${traffic.acknowledged} writes acknowledged so far, ${events} events on disk, ` +
          `${supStream.received.length} frames on the supervisor stream)`,
      );
      await sup.stop('SIGKILL');
      const started = Date.now();
      await sup.start();
      t.comment(`  restarted in ${Date.now() - started} ms`);
    }
    await sleep(r.int(300, 800));
    await traffic.stop();
    const { ledger } = traffic;
    t.comment(`traffic: ${outcomeSummary(ledger)}`);
    t.same(ledger.violations, [], 'every refused write was a Problem Details answer, none a 500');

    // Quiet: everything accepted finishes in the last run, and the streams catch up with the logs.
    const quietBy = Date.now() + 30_000;
    let logs = snapshot(sup.home, sup.cities);
    while (unfinished(logs).length > 0 && Date.now() < quietBy) {
      await sleep(100);
      logs = snapshot(sup.home, sup.cities);
    }
    t.same(unfinished(logs), [], 'every accepted request finished after the last restart');
    for (const [i, name] of CORE.entries()) await catchUp(t, cityStreams[i]!, logs, [name], name);
    const listed = (await sup.call('GET', '/v0/cities')).body.items as Array<{ name: string }>;
    await catchUp(t, supStream, logs, ['__supervisor__', ...listed.map((c) => c.name)]);
    await Promise.all([supStream, ...cityStreams].map((f) => f.close()));
    await sup.stop('SIGTERM');

    logs = snapshot(sup.home, sup.cities);
    const torn = [...logFiles(sup.home, sup.cities)].filter(([, f]) => readRawLog(f).tornTail !== '');
    const corrupt = [...logFiles(sup.home, sup.cities)].filter(([, f]) => readRawLog(f).corrupt.length > 0);
    t.same(
      corrupt.map(([n]) => n),
      [],
      'no log holds a corrupt line',
    );
    const registered = new Set(['__supervisor__', ...listed.map((c) => c.name)]);
    t.same(
      torn.map(([n]) => n).filter((n) => registered.has(n)),
      [],
      'no log the supervisor reopened ends in a torn line (recovery truncated them)',
    );
    if (torn.length > 0)
      t.comment(`torn tails left in logs of unregistered cities: ${torn.map(([n]) => n).join(', ')}`);

    checkSeqs(t, logs);
    const rewritten: string[] = [];
    snapshots.forEach((snap, k) => {
      for (const [name, events] of snap) {
        const now = logs.get(name) ?? [];
        if (JSON.stringify(now.slice(0, events.length)) !== JSON.stringify(events))
          rewritten.push(`kill ${k + 1}: ${name}`);
      }
    });
    t.same(
      rewritten,
      [],
      `every log extends what was on disk before each of the ${KILLS} kills (nothing renumbered)`,
    );
    checkWrites(t, logs, ledger);
    checkTerminals(t, logs, ledger);
    checkStream(t, supStream, logs, 'supervisor stream (Last-Event-ID = composite cursor)');
    for (const [i, name] of CORE.entries()) {
      checkStream(t, cityStreams[i]!, logs, `city stream ${name} (Last-Event-ID = seq)`, name);
    }
    t.ok(
      ledger.emits.size > 0 && ledger.creates.size > 0,
      'the traffic got writes acknowledged between the kills',
    );
  },
);
