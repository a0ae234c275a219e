/**
 * Supervisor cold-start benchmark (file journal): a `$GC_HOME` with many cities and many events in all is
 * prepared once; then the supervisor is started as a fresh process again and again, and we time from the
 * spawn to `GET /health` answering, and to `GET /v0/cities` listing every city `running: true` (replay of
 * every log, bead stores folded, phases run). The floor is the same process started over an empty home.
 * Prints ONE JSON line on stdout.
 *
 * Run: `node dist/bench/coldstart.js` (after `npm run build`). Sizes: `--cities N` (default 100;
 * `BENCH_QUICK=1`: 20), `--events N` in all (default 1000000; `BENCH_QUICK=1`: 100000), `--runs N`
 * (default 3; `BENCH_QUICK=1`: 1). Effects: temp homes and city dirs, removed at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../actors/supervisor/supervisorConfig.ts';
import { runSupervisor } from '../http/main.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const { values: args } = parseArgs({
  options: {
    cities: { type: 'string', default: quick ? '20' : '100' },
    events: { type: 'string', default: quick ? '100000' : '1000000' },
    runs: { type: 'string', default: quick ? '1' : '3' },
  },
});
const CITIES = Number(args.cities);
const EVENTS = Number(args.events);
const RUNS = Number(args.runs);

// dist/bench/coldstart.js runs dist/http/main.js; bench/coldstart.ts (tsx) runs the sources through tsx.
const here = dirname(fileURLToPath(import.meta.url));
const MAIN = import.meta.url.endsWith('.ts')
  ? ['--import', 'tsx', join(here, '..', 'http', 'main.ts')]
  : [join(here, '..', 'http', 'main.js')];

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const round = (ms: number): number => Math.round(ms * 10) / 10;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Registers `CITIES` cities through the API, then appends `EVENTS` events spread over them through the journal. */
async function prepare(gcHome: string, home: string): Promise<number> {
  const config = { ...loadConfig({ GC_HOME: gcHome, GC_TICK: '200ms' }), port: 0, bind: '127.0.0.1' };
  const running = await runSupervisor(config);
  try {
    for (let c = 0; c < CITIES; c++) {
      const res = await fetch(`${running.url}/v0/city`, {
        method: 'POST',
        headers: { 'x-gc-request': '1', 'content-type': 'application/json' },
        body: JSON.stringify({ dir: join(home, `city-${c}`), start_command: 'true' }),
      });
      if (res.status !== 202) throw new Error(`create city-${c}: ${res.status} ${await res.text()}`);
    }
    while (running.supervisor.live.list().filter((c) => c.running).length < CITIES) await sleep(20);
    await running.supervisor.settled();
    const perCity = Math.ceil(EVENTS / Math.max(1, CITIES));
    let written = 0;
    for (let c = 0; c < CITIES; c++) {
      const journal = running.supervisor.live.get(`city-${c}`)!.journal;
      for (let i = 0; i < perCity && written < EVENTS; i += 1000) {
        const batch = [];
        for (let j = i; j < Math.min(perCity, i + 1000) && written < EVENTS; j++, written++) {
          batch.push(
            journal.append({ type: 'bench.event', actor: 'bench', subject: `s${j}`, message: `event ${j}` }),
          );
        }
        await Promise.all(batch);
      }
    }
    return written;
  } finally {
    await running.close();
  }
}

interface Start {
  healthMs: number;
  runningMs: number;
}

/** Starts the supervisor over `gcHome` as a new process; times /health and "every city running". */
async function coldStart(gcHome: string, home: string, cities: number): Promise<Start> {
  const port = await freePort();
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, MAIN, {
    env: {
      ...process.env,
      GC_HOME: gcHome,
      HOME: home,
      GC_PORT: String(port),
      GC_BIND: '127.0.0.1',
      GC_NATS_URL: '',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  try {
    let healthMs = 0;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`supervisor exited ${child.exitCode}: ${stderr}`);
      if (performance.now() - t0 > 600_000) throw new Error('no /health within 10 min');
      const ok = await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) {
        healthMs = performance.now() - t0;
        break;
      }
      await sleep(5);
    }
    for (;;) {
      if (performance.now() - t0 > 600_000) throw new Error('cities not running within 10 min');
      const body = (await (await fetch(`${base}/v0/cities`)).json()) as {
        items: Array<{ running: boolean }>;
      };
      if (body.items.length === cities && body.items.every((c) => c.running)) {
        return { healthMs, runningMs: performance.now() - t0 };
      }
      await sleep(5);
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

const root = await mkdtemp(join(tmpdir(), 'gc-bench-coldstart-'));
try {
  const home = join(root, 'home');
  const emptyHome = join(root, 'empty-home');
  for (const d of [home, emptyHome]) mkdirSync(d, { recursive: true });
  const prepStarted = performance.now();
  const events = await prepare(join(root, 'gchome'), home);
  const prepMs = performance.now() - prepStarted;
  if (!existsSync(join(root, 'gchome', 'events.jsonl'))) throw new Error('no supervisor log was written');

  const loaded: Start[] = [];
  const empty: Start[] = [];
  // Interleaved, so drift in the machine's load touches both alike.
  for (let i = 0; i < RUNS; i++) {
    empty.push(await coldStart(join(root, `gchome-empty-${i}`), emptyHome, 0));
    loaded.push(await coldStart(join(root, 'gchome'), home, CITIES));
  }
  const floor = median(empty.map((s) => s.healthMs));
  const healthMs = median(loaded.map((s) => s.healthMs));
  const runningMs = median(loaded.map((s) => s.runningMs));
  const figures = [
    {
      name: `cold start → /health, ${CITIES} cities, ${events} events`,
      value: round(healthMs),
      unit: 'ms',
      floor: round(floor),
      floor_name: 'cold start → /health, 0 cities',
    },
    {
      name: `cold start → all ${CITIES} cities running`,
      value: round(runningMs),
      unit: 'ms',
      floor: round(floor),
      floor_name: 'cold start → /health, 0 cities',
    },
    {
      name: 'replay rate to all running',
      value: Math.round(events / (runningMs / 1000)),
      unit: 'events/s',
    },
  ];
  process.stdout.write(
    JSON.stringify({
      scenario: 'coldstart',
      mode: quick ? 'quick' : 'full',
      journal: 'file',
      cities: CITIES,
      events,
      runs: RUNS,
      prepare_ms: round(prepMs),
      loaded: loaded.map((s) => ({ health_ms: round(s.healthMs), running_ms: round(s.runningMs) })),
      empty: empty.map((s) => ({ health_ms: round(s.healthMs) })),
      figures,
    }) + '\n',
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
