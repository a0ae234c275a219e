/**
 * `gc` CLI benchmark: start-up time of `gc --help` and of `gc events --seq` against a running supervisor
 * (median of N runs each, with `node -e 0` as the floor: a Node process that does nothing), and the
 * throughput of `gc events` listing a city of many events as JSON Lines (events/s, with a bare Node client
 * that fetches the same pages and prints the same lines as the floor).
 *
 * The events are written straight through the journal backend of an in-process supervisor (a file
 * journal); the CLI runs as a child process, exactly as a user runs it, finding the supervisor through
 * `$GC_HOME/supervisor.json`. Prints ONE JSON line on stdout.
 *
 * Run: `node dist/bench/cli.js` (after `npm run build`). Sizes: `--runs N` (default 15; `BENCH_QUICK=1`: 5),
 * `--events N` (default 100000; `BENCH_QUICK=1`: 20000). Effects: a temp $GC_HOME, removed at the end.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
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
    runs: { type: 'string', default: quick ? '5' : '15' },
    events: { type: 'string', default: quick ? '20000' : '100000' },
  },
});
const RUNS = Number(args.runs);
const EVENTS = Number(args.events);

// dist/bench/cli.js → the repository root is two levels up; bench/cli.ts (tsx) → one.
const here = dirname(fileURLToPath(import.meta.url));
const ROOT = import.meta.url.endsWith('.ts') ? join(here, '..') : join(here, '..', '..');
const GC = join(ROOT, 'bin', 'gc.js');

interface Run {
  ms: number;
  lines: number;
  code: number | null;
  stderr: string;
}

/** Runs `node <args>` to completion (asynchronously: the supervisor in this process keeps serving). */
function run(argv: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let lines = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 10) lines++;
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - t0, lines, code, stderr }));
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const round = (ms: number): number => Math.round(ms * 10) / 10;

/** The median wall time of `runs` runs (after one warm-up run that fills the OS file cache). */
async function medianOf(
  argv: string[],
  env: NodeJS.ProcessEnv,
  what: string,
): Promise<{ ms: number; last: Run }> {
  let last = await run(argv, env);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    last = await run(argv, env);
    if (last.code !== 0) throw new Error(`${what} exited ${last.code}: ${last.stderr}`);
    times.push(last.ms);
  }
  return { ms: median(times), last };
}

/** The floor of the list: fetch the same pages with the same page size and print each event as one line. */
const BARE_LIST = `
const [base, city] = process.argv.slice(1);
const rows = [];
let cursor;
for (;;) {
  const url = base + '/v0/city/' + encodeURIComponent(city) + '/events?limit=500' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '');
  const body = await (await fetch(url)).json();
  for (const ev of body.items ?? []) rows.push(ev);
  if (!body.next_cursor) break;
  cursor = body.next_cursor;
}
rows.sort((a, b) => a.seq - b.seq);
let out = '';
for (const ev of rows) out += JSON.stringify(ev) + '\\n';
process.stdout.write(out);
`;

const root = await mkdtemp(join(tmpdir(), 'gc-bench-cli-'));
const home = join(root, 'home');
mkdirSync(home, { recursive: true });
const config = {
  ...loadConfig({ GC_HOME: join(root, 'gchome'), GC_TICK: '200ms' }),
  port: 0,
  bind: '127.0.0.1',
};
const running = await runSupervisor(config);
try {
  const created = await fetch(`${running.url}/v0/city`, {
    method: 'POST',
    headers: { 'x-gc-request': '1', 'content-type': 'application/json' },
    body: JSON.stringify({ dir: join(home, 'bench'), start_command: 'true' }),
  });
  if (created.status !== 202) throw new Error(`create: ${created.status} ${await created.text()}`);
  while (!running.supervisor.live.get('bench')?.running) await new Promise((r) => setTimeout(r, 10));
  await running.supervisor.settled();

  // Straight through the journal backend: appends issued together are group-committed.
  const journal = running.supervisor.live.get('bench')!.journal;
  const writeStarted = performance.now();
  for (let i = 0; i < EVENTS; i += 1000) {
    const batch = [];
    for (let j = i; j < Math.min(EVENTS, i + 1000); j++) {
      batch.push(
        journal.append({ type: 'bench.event', actor: 'bench', subject: `s${j}`, message: `event ${j}` }),
      );
    }
    await Promise.all(batch);
  }
  const writeMs = performance.now() - writeStarted;
  const head = await journal.head();

  // Only $GC_HOME: the CLI discovers the supervisor the way a user's shell does.
  const env = { ...process.env, GC_HOME: config.home, GC_API: '', GC_CITY: '' };
  const floor = await medianOf(['-e', '0'], env, 'node -e 0');
  const help = await medianOf([GC, '--help'], env, 'gc --help');
  const seqSupervisor = await medianOf([GC, 'events', '--seq'], env, 'gc events --seq');
  const seqCity = await medianOf([GC, 'events', '--seq', '--city', 'bench'], env, 'gc events --seq --city');
  if (seqCity.last.lines !== 1) throw new Error(`gc events --seq printed ${seqCity.last.lines} lines`);

  const list = await run([GC, 'events', '--city', 'bench'], env);
  if (list.code !== 0 || list.lines !== head) {
    throw new Error(`gc events printed ${list.lines} of ${head} lines (exit ${list.code}): ${list.stderr}`);
  }
  const bare = await run(['--input-type=module', '-e', BARE_LIST, running.url, 'bench'], env);
  if (bare.code !== 0 || bare.lines !== head)
    throw new Error(`bare list: ${bare.lines} lines: ${bare.stderr}`);
  const rate = (r: Run): number => Math.round(r.lines / (r.ms / 1000));

  const figures = [
    {
      name: 'gc --help wall time (median)',
      value: round(help.ms),
      unit: 'ms',
      floor: round(floor.ms),
      floor_name: 'node -e 0',
      target: '< 300 ms',
    },
    {
      name: 'gc events --seq, supervisor scope (median)',
      value: round(seqSupervisor.ms),
      unit: 'ms',
      floor: round(floor.ms),
      floor_name: 'node -e 0',
      target: '< 400 ms',
    },
    {
      name: 'gc events --seq --city (median)',
      value: round(seqCity.ms),
      unit: 'ms',
      floor: round(floor.ms),
      floor_name: 'node -e 0',
      target: '< 400 ms',
    },
    {
      name: `gc events, ${head} events of one city as JSON Lines`,
      value: rate(list),
      unit: 'events/s',
      floor: rate(bare),
      floor_name: 'bare Node client, same pages and lines',
    },
    {
      name: `gc events, ${head} events, wall time`,
      value: round(list.ms),
      unit: 'ms',
      floor: round(bare.ms),
      floor_name: 'bare Node client',
    },
  ];
  process.stdout.write(
    JSON.stringify({
      scenario: 'cli',
      mode: quick ? 'quick' : 'full',
      runs: RUNS,
      events: head,
      journal: 'file',
      append_events_per_s: Math.round(EVENTS / (writeMs / 1000)),
      figures,
    }) + '\n',
  );
} finally {
  await running.close();
  await rm(root, { recursive: true, force: true });
}
