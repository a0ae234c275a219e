/**
 * Event API benchmark, printed as ONE JSON line on stdout (progress on stderr):
 * - append → SSE frame latency at 1,000 events/s on the memory, file and JetStream journals, beside two
 *   floors measured in the same run: a bare SSE writer (`res.write` on a plain node:http server, no
 *   journal, no Fastify) and raw JetStream publish → ordered-consumer latency;
 * - replay of a large city log to one client (events/s), beside the journal subscription's own read rate;
 * - fan-out of one city stream to many concurrent subscribers (a child process) at 100 events/s: every
 *   subscriber gets every event, p50/p99 latency, and the supervisor's RSS.
 *
 * Run: `npm run build && node dist/bench/events.js` (or `npx tsx bench/events.ts`). `BENCH_QUICK=1` for a
 * run under ~30 s. Sizes: BENCH_LATENCY_EVENTS, BENCH_REPLAY_EVENTS, BENCH_FANOUT_CLIENTS,
 * BENCH_FANOUT_SECONDS. Effects: listens on 127.0.0.1 random ports, starts a private nats-server (random
 * port, temp store; never the system one) when the binary exists, writes logs under a temp dir; all removed.
 */
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, get, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../actors/config.ts';
import { detachedSupervisor } from '../actors/detachedSupervisor.ts';
import { FileJournalBackend } from '../actors/journal/fileJournal.ts';
import { JetStreamJournalBackend } from '../actors/journal/jetstreamJournal.ts';
import { SUPERVISOR_LOG, type Journal, type JournalBackend } from '../actors/journal/journal.ts';
import { MemoryJournal } from '../actors/journal/memoryJournal.ts';
import { LiveCities } from '../actors/liveCities.ts';
import { buildApp } from '../http/app.ts';
import { findNatsServer, startNatsServer } from '../test/helpers/natsServer.ts';
import { BENCH_EVENT, rawContender } from './journalContenders.ts';
import { pacedLatency, type LatencyFigures } from './journalKit.ts';
import type { Figure } from './report.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const env = (name: string, full: number, small: number): number =>
  Number(process.env[name] ?? (quick ? small : full));
const sizes = {
  latency_events: env('BENCH_LATENCY_EVENTS', 10_000, 3000),
  rate_per_s: 1000,
  warmup: 200,
  replay_events: env('BENCH_REPLAY_EVENTS', 100_000, 30_000),
  fanout_clients: env('BENCH_FANOUT_CLIENTS', 1000, 1000),
  fanout_seconds: env('BENCH_FANOUT_SECONDS', 20, 5),
  fanout_rate_per_s: 100,
};
const progress = (m: string): void => void process.stderr.write(`bench events: ${m}\n`);
const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** Reads SSE frames from `url`, calling `onFrame(id, data)` per event frame; resolves a closer at the 200. */
function sseReader(url: string, onFrame: (id: string, data: string) => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = get(url, { headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`${url}: ${res.statusCode}`));
      res.setEncoding('utf8');
      let tail = '';
      res.on('data', (chunk: string) => {
        // Scan by offset and keep only the unfinished tail: slicing per frame would make the client, which
        // shares the CPU with the server here, the bottleneck of the replay figure.
        const text = tail + chunk;
        let pos = 0;
        let end: number;
        while ((end = text.indexOf('\n\n', pos)) >= 0) {
          if (text.startsWith('id: ', pos)) {
            const nl = text.indexOf('\n', pos);
            const data = text.indexOf('data: ', nl) + 6;
            onFrame(text.slice(pos + 4, nl), text.slice(data, end));
          }
          pos = end + 2;
        }
        tail = text.slice(pos);
      });
      resolve(() => req.destroy());
    });
    req.on('error', reject);
  });
}

/** The supervisor's HTTP app over `cities`, listening on a random loopback port. */
async function startApp(cities: LiveCities) {
  const app = await buildApp({
    config: { ...loadConfig({ GC_HOME: '/nonexistent-gc-home' }), heartbeatMs: 15_000 },
    cities,
    readOnly: false,
    supervisor: detachedSupervisor(cities),
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: address.replace('localhost', '127.0.0.1') };
}

/** Append → SSE frame latency of one city stream whose log is `journal` (fresh: seq i+1 is event i). */
async function sseLatency(base: string, cities: LiveCities, journal: Journal): Promise<LatencyFigures> {
  cities.set({ name: journal.name, path: `/bench/${journal.name}`, journal, running: true, services: {} });
  return pacedLatency(
    sizes.latency_events,
    sizes.rate_per_s,
    sizes.warmup,
    () => journal.append(BENCH_EVENT),
    async (received) => {
      const close = await sseReader(`${base}/v0/city/${journal.name}/events/stream?after_seq=0`, (id) =>
        received(Number(id) - 1),
      );
      return async () => close();
    },
  );
}

/** Append → journal subscription latency, no HTTP: what the journal itself adds. */
async function subscriptionLatency(journal: Journal): Promise<LatencyFigures> {
  return pacedLatency(
    sizes.latency_events,
    sizes.rate_per_s,
    sizes.warmup,
    () => journal.append(BENCH_EVENT),
    async (received) => {
      const sub = journal.subscribe(0);
      const reading = (async () => {
        for await (const e of sub) {
          received(e.seq - 1);
          if (e.seq >= sizes.latency_events) break;
        }
      })();
      return async () => {
        await reading;
        await sub.close();
      };
    },
  );
}

/** The floor: the same frames written with a bare `res.write` on a plain node:http server. */
async function bareSseLatency(): Promise<LatencyFigures> {
  let res: ServerResponse | undefined;
  let connected!: () => void;
  const ready = new Promise<void>((r) => (connected = r));
  const server = createServer((_req, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.flushHeaders();
    res = response;
    connected();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const body = JSON.stringify({ seq: 0, ts: new Date().toISOString(), ...BENCH_EVENT });
  try {
    return await pacedLatency(
      sizes.latency_events,
      sizes.rate_per_s,
      sizes.warmup,
      async (i) => void res!.write(`id: ${i + 1}\nevent: event\ndata: ${body}\n\n`),
      async (received) => {
        const close = await sseReader(`http://127.0.0.1:${port}/`, (id) => received(Number(id) - 1));
        await ready;
        return async () => close();
      },
    );
  } finally {
    res?.destroy();
    server.close();
  }
}

/** Events/s of one client replaying a whole log over SSE, and of a bare journal subscription (the floor). */
async function replay(base: string, cities: LiveCities, journal: Journal) {
  const n = sizes.replay_events;
  const pending = new Set<Promise<unknown>>();
  for (let i = 0; i < n; i++) {
    const p = journal.append(BENCH_EVENT);
    pending.add(p);
    void p.then(() => pending.delete(p));
    if (pending.size >= 256) await Promise.race(pending);
  }
  await Promise.all(pending);
  cities.set({ name: journal.name, path: `/bench/${journal.name}`, journal, running: true, services: {} });
  let started = performance.now();
  const sub = journal.subscribe(0);
  for await (const e of sub) if (e.seq >= n) break;
  await sub.close();
  const floor = Math.round(n / ((performance.now() - started) / 1000));
  started = performance.now();
  let close = (): void => {};
  await new Promise<void>((resolve, reject) => {
    sseReader(`${base}/v0/city/${journal.name}/events/stream?after_seq=0`, (id) => {
      if (Number(id) >= n) resolve();
    })
      .then((c) => (close = c))
      .catch(reject);
  });
  close();
  return {
    events: n,
    per_s: Math.round(n / ((performance.now() - started) / 1000)),
    subscription_per_s: floor,
  };
}

interface FanoutResult {
  clients: number;
  events_each: number;
  received_min: number;
  received_max: number;
  all_received: boolean;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/** One city stream to many subscribers in a child process at 100 events/s; the supervisor's RSS. */
async function fanout(base: string, cities: LiveCities) {
  const journal = new MemoryJournal('fanout');
  cities.set({ name: 'fanout', path: '/bench/fanout', journal, running: true, services: {} });
  const here = new URL('.', import.meta.url);
  const script = new URL(
    import.meta.url.endsWith('.ts') ? 'eventsFanoutClient.ts' : 'eventsFanoutClient.js',
    here,
  );
  const rssBefore = process.memoryUsage().rss;
  const child = fork(script, [`${base}/v0/city/fanout/events/stream`, String(sizes.fanout_clients)], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const messages: Array<{ ready?: number; result?: FanoutResult; error?: string }> = [];
  let wake = (): void => {};
  child.on('message', (m: (typeof messages)[number]) => {
    messages.push(m);
    wake();
  });
  const next = async (what: 'ready' | 'result', timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = messages.shift();
      if (m?.error) throw new Error(m.error);
      if (m?.[what] !== undefined) return m;
      if (Date.now() > deadline) throw new Error(`fan-out client: no ${what} within ${timeoutMs} ms`);
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 100);
      });
    }
  };
  try {
    await next('ready', 60_000);
    const rssConnected = process.memoryUsage().rss;
    const events = sizes.fanout_seconds * sizes.fanout_rate_per_s;
    child.send({ start: events });
    let rssMax = rssConnected;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < events; i++) {
      const due = started + (i * 1000) / sizes.fanout_rate_per_s;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      // A custom type: its payload reaches the wire as recorded (a bead.created payload would be normalised).
      await journal.append({
        type: 'bench.tick',
        actor: 'bench',
        payload: { t: performance.timeOrigin + performance.now() },
      });
      if (i % 50 === 0) rssMax = Math.max(rssMax, process.memoryUsage().rss);
    }
    const { result } = await next('result', 30_000).catch(async (err: unknown) => {
      child.send({ stop: true });
      return (await next('result', 5000).catch(() => {
        throw err;
      })) as { result: FanoutResult };
    });
    const cpu = process.cpuUsage(cpuBefore);
    const elapsed = performance.now() - started;
    return {
      ...result!,
      rate_per_s: sizes.fanout_rate_per_s,
      supervisor_cpu_percent: Math.round(((cpu.user + cpu.system) / 1000 / elapsed) * 100),
      supervisor_rss_mb: { before: mb(rssBefore), connected: mb(rssConnected), max: mb(rssMax) },
    };
  } finally {
    child.kill();
  }
}

async function main() {
  const figures: Figure[] = [];
  // The figures depend on what else the machine runs: say how busy it was.
  const details: Record<string, unknown> = { sizes, cpus: cpus().length, loadavg_at_start: loadavg() };
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  const { app, base } = await startApp(cities);
  const dir = await mkdtemp(join(tmpdir(), 'gc-bench-events-'));
  const file = new FileJournalBackend();
  const open = (backend: JournalBackend, name: string) =>
    backend.open({ name, file: join(dir, name, '.gc', 'events.jsonl') });
  const natsBin = findNatsServer();
  const nats = natsBin ? await startNatsServer(natsBin) : undefined;
  let jetstream: JetStreamJournalBackend | undefined;
  try {
    progress('bare SSE writer floor');
    const bare = await bareSseLatency();
    progress('latency: memory journal');
    const memory = await sseLatency(base, cities, new MemoryJournal('lat-memory'));
    progress('latency: file journal');
    const fileLat = await sseLatency(base, cities, await open(file, 'lat-file'));
    progress('latency: journal subscriptions alone');
    const subscriptions = {
      memory: await subscriptionLatency(new MemoryJournal('sub-memory')),
      file: await subscriptionLatency(await open(file, 'sub-file')),
    };
    details.latency = { bare_sse: bare, memory, file: fileLat, subscription_alone: subscriptions };
    const latencyFigure = (name: string, l: LatencyFigures, floor: LatencyFigures, floorName: string) => {
      figures.push(
        {
          name: `${name} p50`,
          value: l.p50_ms,
          unit: 'ms',
          floor: floor.p50_ms,
          floor_name: floorName,
          target: '≤ 2 ms',
        },
        {
          name: `${name} p99`,
          value: l.p99_ms,
          unit: 'ms',
          floor: floor.p99_ms,
          floor_name: floorName,
          target: '≤ 20 ms',
        },
      );
    };
    latencyFigure('append→SSE latency, memory journal', memory, bare, 'bare SSE writer');
    latencyFigure('append→SSE latency, file journal', fileLat, bare, 'bare SSE writer');
    if (nats) {
      progress('latency: raw JetStream floor');
      const raw = await rawContender(nats.url, {
        sequential: 0,
        pipelined: 0,
        latency: sizes.latency_events,
        window: 1,
        rate_per_s: sizes.rate_per_s,
        rounds: 1,
        warmup: sizes.warmup,
      });
      const rawLat = await raw.latency();
      await raw.close();
      progress('latency: JetStream journal');
      jetstream = new JetStreamJournalBackend({ servers: nats.url, prefix: 'benchev' });
      const jsLat = await sseLatency(base, cities, await open(jetstream, 'lat-jetstream'));
      const jsSub = await subscriptionLatency(await open(jetstream, 'sub-jetstream'));
      details.latency = { ...(details.latency as object), raw_jetstream: rawLat, jetstream: jsLat };
      Object.assign(subscriptions, { jetstream: jsSub });
      latencyFigure('append→SSE latency, JetStream journal', jsLat, rawLat, 'raw JetStream publish→consume');
    } else details.jetstream = 'skipped: nats-server not found';

    progress(`replay: ${sizes.replay_events} events, memory journal`);
    const replayMemory = await replay(base, cities, new MemoryJournal('replay-memory'));
    progress(`replay: ${sizes.replay_events} events, file journal`);
    const replayFile = await replay(base, cities, await open(file, 'replay-file'));
    details.replay = { memory: replayMemory, file: replayFile };
    for (const [name, r] of [
      ['memory', replayMemory],
      ['file', replayFile],
    ] as const) {
      figures.push({
        name: `replay of ${r.events} events to one client, ${name} journal`,
        value: r.per_s,
        unit: 'events/s',
        floor: r.subscription_per_s,
        floor_name: 'journal subscription alone',
        target: '≥ 50000 events/s',
      });
    }

    progress(`fan-out: ${sizes.fanout_clients} subscribers, ${sizes.fanout_seconds} s at 100 events/s`);
    const fan = await fanout(base, cities);
    details.fanout = fan;
    figures.push(
      {
        name: `fan-out to ${fan.clients} subscribers: all received every event`,
        value: fan.all_received ? 1 : 0,
      },
      { name: `fan-out to ${fan.clients} subscribers p50`, value: fan.p50_ms, unit: 'ms' },
      {
        name: `fan-out to ${fan.clients} subscribers p99`,
        value: fan.p99_ms,
        unit: 'ms',
        target: '≤ 250 ms',
      },
      { name: 'supervisor RSS during fan-out (max)', value: fan.supervisor_rss_mb.max, unit: 'MB' },
    );
  } finally {
    await app.close();
    await file.close();
    await jetstream?.close();
    await nats?.destroy();
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(
    `${JSON.stringify({ scenario: 'events', mode: quick ? 'quick' : 'full', figures, details })}\n`,
  );
}

await main();
