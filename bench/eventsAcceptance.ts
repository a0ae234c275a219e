/**
 * Issue 33's acceptance at full scale, too slow for the suite (test/events/causalOrderLoad.test.ts and
 * test/events/supervisorStreamShared.test.ts run the same checks smaller):
 *
 * - `causal`: `--creates N` (default 1,000) creates on a real supervisor, each followed by its unregister,
 *   `--concurrency C` in flight, on the file journal and on JetStream: the supervisor stream read from the
 *   head (opened before the first of those cities) and resumed from cursors taken during and after the
 *   load must show each city's `city.created` and `controller.started` before its create result, its
 *   `controller.stopped` before its unregister result, every event exactly once.
 * - `consumers`: `--subscribers S` (default 1,000) supervisor streams over `--cities K` (default 50)
 *   JetStream logs: the consumers the server holds (K + 1, the supervisor's log included), and every
 *   stream gets every event.
 *
 * Prints ONE JSON line (pass/fail counts, sizes, times, the load average). Run: `npx tsx
 * bench/eventsAcceptance.ts [--only causal|consumers]`. Effects: temp dirs, a private nats-server (random
 * port), all removed at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { Test } from 'tap';
import { JetStreamJournalBackend } from '../actors/runtime/journal/jetstreamJournal.ts';
import { streamAddress } from '../actors/runtime/journal/jetstreamNames.ts';
import { SUPERVISOR_LOG } from '../actors/runtime/journal/journal.ts';
import { openJournalBackend } from '../actors/runtime/journal/openBackend.ts';
import { loadConfig } from '../actors/supervisor/supervisorConfig.ts';
import { formatCursor } from '../schemas/compositeCursor.ts';
import { runSupervisor } from '../http/main.ts';
import { causalAcceptance, FlowReader } from '../test/helpers/causalLoad.ts';
import { eventsServer } from '../test/helpers/eventsServer.ts';
import { findNatsServer, startNatsServer } from '../test/helpers/natsServer.ts';
import { openSse, type SseClient } from '../test/helpers/sse.ts';
import { fakeHost, waitForTerminal } from '../test/helpers/supervisor.ts';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string', default: 'causal,consumers' },
    creates: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '8' },
    journals: { type: 'string', default: 'file,jetstream' },
    subscribers: { type: 'string', default: '1000' },
    cities: { type: 'string', default: '50' },
  },
});
const only = new Set(args.only.split(','));
const load = (): number => Math.round(loadavg()[0]! * 100) / 100;

async function causal(journal: 'file' | 'jetstream', natsUrl: string | undefined): Promise<object> {
  const root = await mkdtemp(join(tmpdir(), 'gc-bench-causal-'));
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  const config = loadConfig(
    { GC_HOME: join(root, 'gchome'), GC_PORT: '0', GC_BIND: '127.0.0.1', GC_TICK: '50ms' },
    natsUrl ? { natsUrl, natsPrefix: `b${randomBytes(3).toString('hex')}` } : {},
  );
  const running = await runSupervisor(config, { host: fakeHost(home) });
  const verify = openJournalBackend(config);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(running.url + path, {
      method,
      headers: { 'x-gc-request': '1', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };
  const log = running.supervisor.log.journal;
  try {
    const seedDir = join(root, 'seed');
    const seed = (await call('POST', '/v0/city', { dir: seedDir, start_command: 'true' })).body as {
      request_id: string;
    };
    await waitForTerminal(log, seed.request_id, 30_000);
    await running.supervisor.settled();
    const headStart = formatCursor(
      new Map([
        [SUPERVISOR_LOG, await log.head()],
        ['seed', await running.supervisor.live.get('seed')!.journal.head()],
      ]),
    );
    const head = await FlowReader.open(running.url);
    const loadBefore = load();
    const result = await causalAcceptance(head, {
      client: { url: running.url, log, call },
      verify,
      names: Array.from({ length: Number(args.creates) }, (_, i) => `c${i}`),
      concurrency: Number(args.concurrency),
      root,
      resumesDuring: 20,
      resumesAfter: 5,
      headStart,
      others: new Map([['seed', seedDir]]),
      mux: () => new Set(running.supervisor.live.logs().keys()),
    });
    await head.close();
    const problems = [...result.problems.values()].reduce((n, p) => n + p.length, 0);
    return {
      journal,
      creates: Number(args.creates),
      unregisters: Number(args.creates),
      concurrency: Number(args.concurrency),
      streams: result.streams,
      frames: result.frames,
      problems,
      first_problems: [...result.problems].slice(0, 3),
      ms: result.ms,
      creates_per_s: Math.round((Number(args.creates) / result.ms) * 1000 * 10) / 10,
      load_before: loadBefore,
      load_after: load(),
    };
  } finally {
    await verify.close().catch(() => undefined);
    await running.close();
    await rm(root, { recursive: true, force: true });
  }
}

async function consumers(natsUrl: string): Promise<object> {
  const subscribers = Number(args.subscribers);
  const cityCount = Number(args.cities);
  const cleanups: Array<() => unknown> = [];
  const t = { teardown: (fn: () => unknown) => cleanups.push(fn) } as unknown as Test;
  const prefix = `b${randomBytes(4).toString('hex')}`;
  const backend = new JetStreamJournalBackend({ servers: natsUrl, prefix });
  const file = (name: string) => `/gc-bench/${prefix}/${name}/.gc/events.jsonl`;
  const nc = await connect({ servers: natsUrl });
  const streams: SseClient[] = [];
  try {
    const supervisor = await backend.open({ name: SUPERVISOR_LOG, file: file(SUPERVISOR_LOG) });
    const srv = await eventsServer(t, { supervisorLog: supervisor });
    const names = Array.from({ length: cityCount }, (_, i) => `c${String(i).padStart(3, '0')}`);
    const cities = await Promise.all(names.map((name) => backend.open({ name, file: file(name) })));
    for (const c of cities) srv.addCity(c.name, c);
    const jsm = await jetstreamManager(nc);
    const held = async (): Promise<number> => {
      let sum = 0;
      for (const name of [SUPERVISOR_LOG, ...names])
        sum += (await jsm.streams.info(streamAddress(file(name), prefix).stream)).state.consumer_count;
      return sum;
    };
    const before = await held();
    const opened = Date.now();
    for (let i = 0; i < subscribers; i++) streams.push(await openSse(`${srv.base}/v0/events/stream`));
    const openMs = Date.now() - opened;
    const ROUNDS = 3;
    for (let r = 0; r < ROUNDS; r++) {
      await Promise.all(cities.map((c) => c.append({ type: 'bench.tick', actor: 'bench', subject: `${r}` })));
      await supervisor.append({ type: 'bench.tick', actor: 'bench', subject: `sup-${r}` });
    }
    const wanted = ROUNDS * (cityCount + 1);
    let complete = 0;
    await Promise.all(
      streams.map(async (s) => {
        const seen = new Set<string>();
        for (let n = 0; n < wanted; n++) {
          const data = JSON.parse((await s.nextEvent(60_000)).data) as { city: string; seq: number };
          seen.add(`${data.city}#${data.seq}`);
        }
        if (seen.size === wanted) complete++;
      }),
    );
    const after = await held();
    return {
      subscribers,
      cities: cityCount,
      logs: cityCount + 1,
      consumers_before: before,
      consumers_with_streams: after,
      naive_consumers: subscribers * (cityCount + 1),
      streams_with_every_event_once: complete,
      open_ms: openMs,
      load: load(),
    };
  } finally {
    for (const s of streams) s.close();
    for (const fn of cleanups.reverse()) await fn();
    await nc.close();
    await backend.close();
  }
}

const out: Record<string, unknown> = { load_start: load() };
const bin = findNatsServer();
const nats = bin ? await startNatsServer(bin) : undefined;
try {
  if (only.has('causal'))
    for (const journal of args.journals.split(',') as Array<'file' | 'jetstream'>) {
      if (journal === 'jetstream' && !nats) out[`causal_${journal}`] = 'skipped: nats-server not found';
      else out[`causal_${journal}`] = await causal(journal, journal === 'jetstream' ? nats!.url : undefined);
    }
  if (only.has('consumers'))
    out.consumers = nats ? await consumers(nats.url) : 'skipped: nats-server not found';
} finally {
  await nats?.destroy();
}
console.log(JSON.stringify(out));
