/**
 * Event API benchmark, printed as ONE JSON line on stdout (progress on stderr):
 * - append → SSE frame latency at 1,000 events/s on the memory, file and JetStream journals, beside two
 *   floors measured in the same run: a bare SSE writer (`res.write` on a plain node:http server, no
 *   journal, no Fastify) and raw JetStream publish → ordered-consumer latency;
 * - replay of a large city log to one client (events/s), beside the journal subscription's own read rate;
 * - fan-out of one city stream (file journal by default) to many subscribers held by child processes of
 *   at most 2,500 sockets each: every subscriber gets every event, p50/p99 latency and the supervisor's
 *   RSS, at each subscriber count asked for (10,000 at 10 events/s by default); then saturation: 1,000
 *   subscribers at rising rates, each run beside a naive bare SSE writer (one `res.write` per client per
 *   event) at the same rate, comparing frames delivered per second.
 *
 * Run: `npm run build && node dist/bench/events.js` (or `npx tsx bench/events.ts`). `BENCH_QUICK=1` for a
 * short run. Sizes: BENCH_LATENCY_EVENTS, BENCH_REPLAY_EVENTS; the fan-out's from flags or the
 * environment (see `fan` below), e.g. `node dist/bench/events.js --only fanout --clients 1000,10000
 * --rate 10 --saturation-rates 100,1000,3000`. Each subscriber is a socket on both sides: the supervisor
 * (this process) needs one descriptor per subscriber, so the run refuses to start when `ulimit -n` is
 * below the largest count (raise it with `ulimit -n 20000` in the shell that runs the bench).
 * Effects: listens on 127.0.0.1 random ports, starts a private nats-server (random port, temp store; never
 * the system one) when the binary exists, writes logs under a temp dir; all removed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, get, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { FileJournalBackend } from '../actors/runtime/journal/fileJournal.ts';
import { JetStreamJournalBackend } from '../actors/runtime/journal/jetstreamJournal.ts';
import { SUPERVISOR_LOG, type Journal, type JournalBackend } from '../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../actors/runtime/journal/memoryJournal.ts';
import { LiveCities } from '../actors/supervisor/liveCities.ts';
import { findNatsServer, startNatsServer } from '../test/helpers/natsServer.ts';
import { BENCH_EVENT, rawContender } from './journalContenders.ts';
import { pacedLatency, type LatencyFigures } from './journalKit.ts';
import { fanoutRun, openFileLimit, startApp, summary, tick, type FanoutRun } from './fanoutKit.ts';
import type { Figure } from './report.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const env = (name: string, full: number, small: number): number =>
  Number(process.env[name] ?? (quick ? small : full));
const sizes = {
  latency_events: env('BENCH_LATENCY_EVENTS', 10_000, 3000),
  rate_per_s: 1000,
  warmup: 200,
  replay_events: env('BENCH_REPLAY_EVENTS', 100_000, 30_000),
};
/**
 * Fan-out sizes, from flags or the environment: `--clients 1000,10000` (BENCH_FANOUT_CLIENTS) subscriber
 * counts run at `--rate` events/s (BENCH_FANOUT_RATE) for `--seconds` (BENCH_FANOUT_SECONDS); saturation
 * runs `--saturation-clients` (BENCH_FANOUT_SAT_CLIENTS) at each of `--saturation-rates`
 * (BENCH_FANOUT_SAT_RATES), at most `max_deliveries` frames each; `--fanout-journal memory|file`
 * (BENCH_FANOUT_JOURNAL). `--only latency,replay,fanout` (BENCH_EVENTS_ONLY) runs some sections.
 */
const fan = {
  clients: numbers(flag('clients', 'BENCH_FANOUT_CLIENTS'), quick ? [2000] : [10_000]),
  rate: numbers(flag('rate', 'BENCH_FANOUT_RATE'), [10])[0]!,
  seconds: numbers(flag('seconds', 'BENCH_FANOUT_SECONDS'), [quick ? 5 : 10])[0]!,
  saturation_clients: numbers(flag('saturation-clients', 'BENCH_FANOUT_SAT_CLIENTS'), [1000])[0]!,
  saturation_rates: numbers(
    flag('saturation-rates', 'BENCH_FANOUT_SAT_RATES'),
    quick ? [100, 1000] : [100, 300, 1000, 3000],
  ),
  max_deliveries: quick ? 1_000_000 : 3_000_000,
  journal: flag('fanout-journal', 'BENCH_FANOUT_JOURNAL') === 'memory' ? 'memory' : 'file',
};
const sections = (flag('only', 'BENCH_EVENTS_ONLY') ?? 'latency,replay,fanout').split(',');
const progress = (m: string): void => void process.stderr.write(`bench events: ${m}\n`);

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

/** Fan-out of one city stream of the supervisor's app (`journal` behind city `name`). */
async function fanout(
  base: string,
  cities: LiveCities,
  journal: Journal,
  clients: number,
  rate: number,
  events: number,
) {
  cities.set({ name: journal.name, path: `/bench/${journal.name}`, journal, running: true, services: {} });
  const head = await journal.head();
  try {
    return await fanoutRun(
      `${base}/v0/city/${journal.name}/events/stream?after_seq=${head}`,
      clients,
      rate,
      events,
      async (_i, t) => void (await journal.append(tick(t))),
    );
  } finally {
    cities.remove(journal.name);
  }
}

/**
 * The floor of the saturation figure: a naive SSE writer on a plain node:http server, one `res.write` per
 * client per event (the frame string built once per event), no journal and no Fastify.
 */
async function bareFanout(clients: number, rate: number, events: number) {
  const open = new Set<ServerResponse>();
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    open.add(res);
    res.on('close', () => open.delete(res));
  });
  server.maxConnections = clients + 100;
  await new Promise<void>((r) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, r));
  const { port } = server.address() as AddressInfo;
  try {
    return await fanoutRun(`http://127.0.0.1:${port}/`, clients, rate, events, async (i, t) => {
      const data = JSON.stringify({ seq: i + 1, ts: new Date().toISOString(), ...tick(t) });
      const frame = `id: ${i + 1}\nevent: event\ndata: ${data}\n\n`;
      for (const res of open) res.write(frame);
    });
  } finally {
    for (const res of open) res.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

function numbers(text: string | undefined, fallback: number[]): number[] {
  const list = text
    ? text
        .split(',')
        .map(Number)
        .filter((n) => n > 0)
    : [];
  return list.length > 0 ? list : fallback;
}

/** `--name value` or `--name=value` from argv, else the environment variable `env`. */
function flag(name: string, env: string): string | undefined {
  const args = process.argv.slice(2);
  for (const [i, arg] of args.entries()) {
    if (arg === `--${name}`) return args[i + 1];
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return process.env[env];
}

async function main() {
  const figures: Figure[] = [];
  // The figures depend on what else the machine runs: say how busy it was.
  const details: Record<string, unknown> = {
    sizes,
    fanout_sizes: fan,
    cpus: cpus().length,
    loadavg_at_start: loadavg(),
  };
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  const { app, base } = await startApp(cities);
  const dir = await mkdtemp(join(tmpdir(), 'gc-bench-events-'));
  const file = new FileJournalBackend();
  const open = (backend: JournalBackend, name: string) =>
    backend.open({ name, file: join(dir, name, '.gc', 'events.jsonl') });
  const natsBin = sections.includes('latency') ? findNatsServer() : undefined;
  const nats = natsBin ? await startNatsServer(natsBin) : undefined;
  let jetstream: JetStreamJournalBackend | undefined;
  try {
    if (sections.includes('latency')) {
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
        latencyFigure(
          'append→SSE latency, JetStream journal',
          jsLat,
          rawLat,
          'raw JetStream publish→consume',
        );
      } else details.jetstream = 'skipped: nats-server not found';
    }

    if (sections.includes('replay')) {
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
    }

    if (sections.includes('fanout')) {
      const fanoutLog = async (name: string): Promise<Journal> =>
        fan.journal === 'memory' ? new MemoryJournal(name) : open(file, name);
      const limit = openFileLimit();
      const needed = Math.max(...fan.clients, fan.saturation_clients) + 200;
      if (limit < needed) {
        throw new Error(
          `fan-out needs ${needed} open files and this process may open ${limit}: raise it (ulimit -n ${needed}) ` +
            'or pass fewer subscribers (--clients, --saturation-clients)',
        );
      }
      const connected: FanoutRun[] = [];
      for (const clients of fan.clients) {
        const events = Math.max(1, Math.round(fan.rate * fan.seconds));
        progress(
          `fan-out: ${clients} subscribers, ${events} events at ${fan.rate}/s (${fan.journal} journal)`,
        );
        const run = await fanout(
          base,
          cities,
          await fanoutLog(`fanout-${clients}`),
          clients,
          fan.rate,
          events,
        );
        connected.push(run);
        progress(`  ${summary(run)}`);
        figures.push(
          {
            name: `fan-out to ${clients} subscribers at ${fan.rate} events/s: all received every event`,
            value: run.all_received ? 1 : 0,
            target: '1',
          },
          {
            name: `fan-out to ${clients} subscribers at ${fan.rate} events/s p50`,
            value: run.p50_ms,
            unit: 'ms',
          },
          {
            name: `fan-out to ${clients} subscribers at ${fan.rate} events/s p99`,
            value: run.p99_ms,
            unit: 'ms',
            target: '≤ 250 ms',
          },
          {
            name: `supervisor RSS with ${clients} subscribers (max)`,
            value: run.server_rss_mb.max,
            unit: 'MB',
          },
        );
      }
      // Saturation: the same subscribers at rising rates, beside the naive writer at the same rates, each
      // pair measured back to back in alternating order.
      const saturation: Array<{ rate: number; supervisor: FanoutRun; bare: FanoutRun }> = [];
      const clients = fan.saturation_clients;
      for (const [k, rate] of fan.saturation_rates.entries()) {
        const events = Math.max(
          1,
          Math.min(Math.round(rate * fan.seconds), Math.floor(fan.max_deliveries / clients)),
        );
        progress(`fan-out saturation: ${clients} subscribers, ${events} events at ${rate}/s`);
        const ours = () =>
          fanoutLog(`saturation-${rate}`).then((j) => fanout(base, cities, j, clients, rate, events));
        const naive = () => bareFanout(clients, rate, events);
        const [supervisor, bare] =
          k % 2 === 0
            ? [await ours(), await naive()]
            : await naive().then(async (b) => [await ours(), b] as const);
        saturation.push({ rate, supervisor, bare });
        progress(`  supervisor ${summary(supervisor)}; naive ${summary(bare)}`);
        figures.push({
          name: `fan-out deliveries/s, ${clients} subscribers at ${rate} events/s offered`,
          value: supervisor.deliveries_per_s,
          unit: 'frames/s',
          floor: bare.deliveries_per_s,
          floor_name: 'naive bare SSE writer, same rate',
        });
        figures.push({
          name: `fan-out frames per server CPU-second, ${clients} subscribers at ${rate} events/s offered`,
          value: supervisor.frames_per_server_cpu_s,
          unit: 'frames/cpu-s',
          floor: bare.frames_per_server_cpu_s,
          floor_name: 'naive bare SSE writer, same rate',
        });
      }
      if (saturation.length > 0) {
        const best = (pick: (r: (typeof saturation)[number]) => FanoutRun) =>
          saturation.map(pick).reduce((a, b) => (b.deliveries_per_s > a.deliveries_per_s ? b : a));
        const ours = best((r) => r.supervisor);
        const bare = best((r) => r.bare);
        figures.push({
          name: `fan-out at saturation, ${clients} subscribers: most deliveries/s at any rate`,
          value: ours.deliveries_per_s,
          unit: 'frames/s',
          floor: bare.deliveries_per_s,
          floor_name: 'naive bare SSE writer (one write per client per event), its best rate',
          target: '≥ 1.5 × floor',
        });
      }
      details.fanout = { journal: fan.journal, connected, saturation };
    }
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
