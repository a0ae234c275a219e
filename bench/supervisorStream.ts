/**
 * Supervisor-stream benchmark (issue #33), printed as ONE JSON line on stdout (progress on stderr):
 * `--subscribers S` (default 5,000; `BENCH_QUICK=1`: 1,000) clients of `/v0/events/stream` over `--cities K`
 * (default 100; quick 20) city logs on the file journal, `--rate R` events/s in all (default 200) for
 * `--seconds T` (default 10; quick 5), each event appended to the next city in turn. Every subscriber must get
 * every event; p50/p99 append → arrival and the supervisor's RSS. The floor, in the same run and process:
 * the same merge run once per subscriber (a `SupervisorFeed` of its own per connection on a plain
 * node:http server, reading every log by itself, frames rendered once per event through the same frame
 * cache), which is what every supervisor stream did before the merged tail.
 *
 * Run: `npm run build && node dist/bench/supervisorStream.js` (raise `ulimit -n` above S + 200 first).
 * Effects: listens on 127.0.0.1 random ports, forks subscriber processes, writes logs under a temp dir; all
 * removed at the end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SupervisorFeed } from '../actors/runtime/feed/supervisorFeed.ts';
import { FileJournalBackend } from '../actors/runtime/journal/fileJournal.ts';
import { SUPERVISOR_LOG, type Journal, type JournalEvent } from '../actors/runtime/journal/journal.ts';
import { LiveCities } from '../actors/supervisor/liveCities.ts';
import { toTaggedWireEvent } from '../http/events/wire.ts';
import { FrameCache } from '../http/sse/frameCache.ts';
import { fanoutRun, openFileLimit, startApp, summary, tick, type FanoutRun } from './fanoutKit.ts';
import type { Figure } from './report.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const { values: args } = parseArgs({
  options: {
    subscribers: { type: 'string', default: quick ? '1000' : '5000' },
    cities: { type: 'string', default: quick ? '20' : '100' },
    rate: { type: 'string', default: '200' },
    seconds: { type: 'string', default: quick ? '5' : '10' },
    only: { type: 'string', default: 'shared,naive' },
  },
});
const SUBSCRIBERS = Number(args.subscribers);
const CITIES = Number(args.cities);
const RATE = Number(args.rate);
const EVENTS = RATE * Number(args.seconds);
const only = new Set(args.only.split(','));
const progress = (m: string): void => void process.stderr.write(`bench supervisorStream: ${m}\n`);
const load = (): number[] => loadavg().map((x) => Math.round(x * 100) / 100);

/** The producer: event `i` goes to the `i % K`th city, so every log moves and the merge has work. */
const producer =
  (cities: Journal[]) =>
  async (i: number, t: number): Promise<void> =>
    void (await cities[i % cities.length]!.append(tick(t)));

/** The product: the supervisor app's `/v0/events/stream`, every stream a member of the one merged tail. */
async function shared(cities: LiveCities, logs: Journal[]): Promise<FanoutRun> {
  const { app, base } = await startApp(cities);
  try {
    return await fanoutRun(`${base}/v0/events/stream`, SUBSCRIBERS, RATE, EVENTS, producer(logs), 60_000);
  } finally {
    await app.close();
  }
}

/** The floor: one `SupervisorFeed` per connection, each following every log itself. */
async function naive(cities: LiveCities, logs: Journal[]): Promise<FanoutRun> {
  const frames = new FrameCache();
  const render = (event: JournalEvent, log: string): string => JSON.stringify(toTaggedWireEvent(event, log));
  const feeds = new Set<SupervisorFeed>();
  const open = new Set<ServerResponse>();
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    open.add(res);
    const start = new Map<string, number>();
    // One wait per stream, however many of its pumps are held by it.
    let drained: Promise<void> | undefined;
    const drainOf = (r: ServerResponse) =>
      new Promise<void>((resolve) => r.once('drain', resolve)).then(() => void (drained = undefined));
    void Promise.all(
      [...cities.logs()].map(async ([name, journal]) => start.set(name, await journal.head())),
    ).then(() => {
      if (res.destroyed) return;
      const feed = new SupervisorFeed(
        { cities, start },
        {
          ready: () => (res.writableNeedDrain ? (drained ??= drainOf(res)) : Promise.resolve()),
          deliver: (log, event, cursorAfter, journal) =>
            void res.write(
              `id: ${cursorAfter}\nevent: tagged_event\ndata: ${frames.data(journal, log, event, render)}\n\n`,
            ),
        },
      );
      feeds.add(feed);
      res.on('close', () => {
        feed.close();
        feeds.delete(feed);
      });
      feed.start();
    });
    res.on('close', () => open.delete(res));
  });
  server.maxConnections = SUBSCRIBERS + 100;
  await new Promise<void>((r) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, r));
  const { port } = server.address() as AddressInfo;
  try {
    return await fanoutRun(`http://127.0.0.1:${port}/`, SUBSCRIBERS, RATE, EVENTS, producer(logs), 60_000);
  } finally {
    for (const feed of feeds) feed.close();
    for (const res of open) res.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

async function main(): Promise<void> {
  if (openFileLimit() < SUBSCRIBERS + 200)
    throw new Error(
      `ulimit -n is ${openFileLimit()}: raise it above ${SUBSCRIBERS + 200} or pass fewer --subscribers`,
    );
  const dir = await mkdtemp(join(tmpdir(), 'gc-bench-supstream-'));
  const backend = new FileJournalBackend();
  const open = (name: string) => backend.open({ name, file: join(dir, name, '.gc', 'events.jsonl') });
  const cities = new LiveCities(await open(SUPERVISOR_LOG));
  const logs: Journal[] = [];
  for (let i = 0; i < CITIES; i++) {
    const journal = await open(`c${String(i).padStart(3, '0')}`);
    logs.push(journal);
    cities.set({ name: journal.name, path: `/bench/${journal.name}`, journal, running: true, services: {} });
  }
  const loadStart = load();
  const runs: { shared?: FanoutRun; naive?: FanoutRun } = {};
  try {
    if (only.has('shared')) {
      progress(`merged tail: ${SUBSCRIBERS} subscribers, ${CITIES} cities, ${EVENTS} events at ${RATE}/s`);
      runs.shared = await shared(cities, logs);
      progress(`  ${summary(runs.shared)}`);
    }
    if (only.has('naive')) {
      progress(`per-subscriber merge: the same`);
      runs.naive = await naive(cities, logs).catch((err: Error) => {
        progress(`  failed: ${err.message}`);
        return undefined;
      });
      if (runs.naive) progress(`  ${summary(runs.naive)}`);
    }
  } finally {
    for (const journal of cities.logs().values()) await journal.close();
    await rm(dir, { recursive: true, force: true });
  }
  const scale = `${SUBSCRIBERS} supervisor-stream subscribers over ${CITIES} cities at ${RATE} events/s in all`;
  const figures: Figure[] = [];
  const ours = runs.shared;
  const floor = runs.naive;
  const vs = (pick: (r: FanoutRun) => number) => (floor ? { floor: pick(floor) } : {});
  const floorName = 'the same merge run per subscriber, same run';
  if (ours) {
    figures.push(
      { name: `${scale}: all received every event`, value: ours.all_received ? 1 : 0, target: '1' },
      { name: `${scale} p50`, value: ours.p50_ms, unit: 'ms', ...vs((r) => r.p50_ms), floor_name: floorName },
      {
        name: `${scale} p99`,
        value: ours.p99_ms,
        unit: 'ms',
        ...vs((r) => r.p99_ms),
        floor_name: floorName,
        target: '≤ 250 ms',
      },
      {
        name: `supervisor RSS, ${scale} (max)`,
        value: ours.server_rss_mb.max,
        unit: 'MB',
        ...vs((r) => r.server_rss_mb.max),
        floor_name: floorName,
        target: '≤ 600 MB',
      },
      {
        name: `frames per server CPU-second, ${scale}`,
        value: ours.frames_per_server_cpu_s,
        unit: 'frames/cpu-s',
        ...vs((r) => r.frames_per_server_cpu_s),
        floor_name: floorName,
      },
    );
  }
  const details = { cpus: cpus().length, loadavg_at_start: loadStart, loadavg_at_end: load(), ...runs };
  process.stdout.write(
    `${JSON.stringify({ scenario: 'supervisorStream', mode: quick ? 'quick' : 'full', figures, details })}\n`,
  );
}

await main();
