/**
 * Agents at work: start-up of the commands agents run every turn (`bd show <id>`, `gc hook`) against a
 * running supervisor, median of N runs with `node -e 0` as the floor, and their peak RSS; then the work
 * loop's throughput: B beads slung to a pool of A mock agents in worker mode (tmux, the hooks gc installs),
 * wall time until all are closed, against the same scripted steps run without the city (A workers in
 * parallel, each writing its files and taking GC_MOCK_WORK_MS per bead), and against those steps with the node
 * process starts each bead costs an agent (the floor a 2-core machine can show).
 *
 * Run: `node dist/bench/work.js` after `npm run build`. Sizes: `--runs N` (15; BENCH_QUICK=1: 5),
 * `--beads B` (200; quick 40), `--agents A` (10; quick 4), `--work-ms M` (2000). Needs tmux.
 * Prints ONE JSON line on stdout. Effects: a temp home, a supervisor child and its tmux server, all removed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { tmuxSocketFor } from '../schemas/sessionRuntime.ts';
import { cpuMs } from './procCpu.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: quick ? '5' : '15' },
    beads: { type: 'string', default: quick ? '40' : '200' },
    agents: { type: 'string', default: quick ? '4' : '10' },
    'work-ms': { type: 'string', default: '2000' },
  },
});
const RUNS = Number(args.runs);
const BEADS = Number(args.beads);
const AGENTS = Number(args.agents);
const WORK_MS = Number(args['work-ms']);

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = import.meta.url.endsWith('.ts') ? join(here, '..') : join(here, '..', '..');
const GC = join(ROOT, 'bin', 'gc.js');
const BD = join(ROOT, 'bin', 'bd.js');
const CITY = 'bench';

interface Run {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
  rssKb?: number;
}

/** Runs `node <argv>` (under /usr/bin/time -f %M for the peak RSS when `rss`). */
function run(argv: string[], env: NodeJS.ProcessEnv, rss = false): Promise<Run> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const [cmd, full] = rss
      ? ['/usr/bin/time', ['-f', 'RSS_KB=%M', process.execPath, ...argv]]
      : [process.execPath, argv];
    const child = spawn(cmd, full, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /RSS_KB=(\d+)/.exec(stderr);
      resolve({ ms: performance.now() - t0, code, stdout, stderr, ...(m ? { rssKb: Number(m[1]) } : {}) });
    });
  });
}

/** The commands the mock worker runs for one bead (bin/mock-agent/worker.mjs): hook, claim, report, close. */
const COMMANDS_PER_BEAD = 4;

/** One command start as the worker makes it (`sh -c`), of a node process that does nothing. */
const shNode = (): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `${JSON.stringify(process.execPath)} -e 0`], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number): number => Math.round(x * 10) / 10;

/**
 * Medians of several commands, their runs interleaved (a, b, c, a, b, c, …): on a shared machine the load
 * drifts during a measurement, and interleaving lets the floor and the measured commands see the same drift.
 */
async function mediansOf(
  cases: { argv: string[]; env: NodeJS.ProcessEnv; codes: number[] }[],
): Promise<number[]> {
  for (const c of cases) await run(c.argv, c.env);
  const times: number[][] = cases.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, c] of cases.entries()) {
      const r = await run(c.argv, c.env);
      if (!c.codes.includes(r.code ?? -1))
        throw new Error(`${c.argv.join(' ')} exited ${r.code}: ${r.stderr}`);
      times[k]!.push(r.ms);
    }
  }
  return times.map(median);
}

const root = await mkdtemp(join(tmpdir(), 'gc-bench-work-'));
const home = join(root, 'home');
const dir = join(root, 'cities', CITY);
mkdirSync(join(root, 'cities'), { recursive: true });
const supEnv: NodeJS.ProcessEnv = {
  ...process.env,
  GC_HOME: home,
  GC_SESSION_RUNTIME: 'tmux',
  GC_MOCK_WORKER: '1',
  GC_MOCK_SETTINGS: '${GC_CITY_RUNTIME_DIR}/settings.json',
  GC_MOCK_POLL_MS: '500',
  GC_MOCK_WORK_MS: String(WORK_MS),
};
for (const k of ['GC_API', 'GC_CITY', 'NODE_OPTIONS']) delete supEnv[k];
let sup: ChildProcess | undefined;
let url = '';
let port = 0;

async function startSupervisor(): Promise<void> {
  const child = spawn(
    process.execPath,
    [GC, 'supervisor', 'run', '--home', home, '--port', String(port), '--tick', '200ms'],
    { cwd: ROOT, env: supEnv, stdio: ['ignore', 'ignore', 'ignore'] },
  );
  sup = child;
  for (;;) {
    try {
      const rec = JSON.parse(await readFile(join(home, 'supervisor.json'), 'utf8')) as {
        pid: number;
        url: string;
      };
      if (rec.pid === child.pid) {
        url = rec.url;
        port = Number(new URL(url).port);
        return;
      }
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stopSupervisor(): Promise<void> {
  const child = sup;
  if (!child || child.exitCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url + path, {
    method,
    headers: method === 'GET' ? {} : { 'x-gc-request': 'bench', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

try {
  await startSupervisor();
  const env = { ...supEnv, GC_API: url, GC_CITY: CITY, BEADS_ACTOR: 'bench' };
  const made = await run([GC, 'city', 'create', dir, '--start-command', 'true', '--wait'], env);
  if (made.code !== 0) throw new Error(`city create: ${made.stderr}`);
  appendFileSync(
    join(dir, 'city.toml'),
    `\n[[agent]]\nname = "polecat"\nprovider = "mock"\nmax_active_sessions = ${AGENTS}\n`,
  );
  await stopSupervisor();
  await startSupervisor();
  while ((await call('GET', `/v0/city/${CITY}/agents`).catch(() => ({ status: 0 }))).status !== 200) {
    await new Promise((r) => setTimeout(r, 100));
  }

  // Start-up: an agent's bd show and gc hook (no work: exit 1, the common answer), as from a session.
  const probe = (await call('POST', `/v0/city/${CITY}/beads`, { title: 'probe' })).body as { id: string };
  const session = {
    ...env,
    GC_TEMPLATE: 'polecat',
    GC_SESSION_ID: 'x-1',
    GC_SESSION_NAME: 'x-1',
    GC_ALIAS: 'x-1',
  };
  const [floor, bdShow, hook] = (await mediansOf([
    { argv: ['-e', '0'], env, codes: [0] },
    { argv: [BD, 'show', probe.id, '--json'], env, codes: [0] },
    { argv: [GC, 'hook'], env: session, codes: [0, 1] },
  ])) as [number, number, number];
  const rss = {
    floor: (await run(['-e', '0'], env, true)).rssKb,
    bd: (await run([BD, 'show', probe.id, '--json'], env, true)).rssKb,
    hook: (await run([GC, 'hook'], session, true)).rssKb,
  };
  await call('POST', `/v0/city/${CITY}/bead/${probe.id}/close`);

  // The floor of the loop: the scripted steps alone, A workers in parallel over B beads.
  const scratch = join(root, 'scratch');
  mkdirSync(scratch);
  const aloneStarted = performance.now();
  await Promise.all(
    Array.from({ length: AGENTS }, async (_, w) => {
      for (let i = w; i < BEADS; i += AGENTS) {
        writeFileSync(join(scratch, `b-${i}.txt`), `Task ${i}\n`);
        await new Promise((r) => setTimeout(r, WORK_MS));
      }
    }),
  );
  const aloneMs = performance.now() - aloneStarted;

  // The fair floor on a small machine: the same steps with the process starts an agent cannot avoid, one
  // `sh -c 'node -e 0'` for each command a bead costs it (gc hook, bd update --claim, gc mail send, bd close).
  const startsStarted = performance.now();
  await Promise.all(
    Array.from({ length: AGENTS }, async (_, w) => {
      for (let i = w; i < BEADS; i += AGENTS) {
        for (let c = 0; c < COMMANDS_PER_BEAD; c++) await shNode();
        writeFileSync(join(scratch, `c-${i}.txt`), `Task ${i}\n`);
        await new Promise((r) => setTimeout(r, WORK_MS));
      }
    }),
  );
  const startsMs = performance.now() - startsStarted;

  // The loop: B beads routed to the pool; wall time from the first sling until every one is closed.
  const ids: string[] = [];
  for (let i = 0; i < BEADS; i++) {
    ids.push(
      ((await call('POST', `/v0/city/${CITY}/beads`, { title: `Task ${i}` })).body as { id: string }).id,
    );
  }
  const supCpu0 = cpuMs(sup?.pid);
  const loopStarted = performance.now();
  for (const id of ids) {
    const r = await call('POST', `/v0/city/${CITY}/sling`, { target: 'polecat', bead: id });
    if (r.status !== 200) throw new Error(`sling ${id}: ${r.status} ${JSON.stringify(r.body)}`);
  }
  const deadline = Date.now() + Math.max(600_000, (BEADS / AGENTS) * WORK_MS * 10);
  for (;;) {
    const open = (await call('GET', `/v0/city/${CITY}/beads?limit=1000&type=task`)).body as { total: number };
    if (open.total === 0) break;
    if (Date.now() > deadline) throw new Error(`${open.total} beads still open`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const loopMs = performance.now() - loopStarted;
  const supCpu = (cpuMs(sup?.pid) ?? 0) - (supCpu0 ?? 0);
  const rejected = (await call('GET', `/v0/city/${CITY}/events?type=bead.claim_rejected&limit=10000`))
    .body as { items: unknown[] };
  const events = (await call('GET', `/v0/city/${CITY}/events?type=bead.closed&limit=1000`)).body as {
    items: { subject?: string }[];
  };
  const closedOnce = ids.every((id) => events.items.filter((e) => e.subject === id).length === 1);

  const figures = [
    {
      name: 'bd show <id> --json (median)',
      value: round(bdShow),
      unit: 'ms',
      floor: round(floor),
      floor_name: 'node -e 0',
      target: '≤ 1.5× floor',
    },
    {
      name: 'gc hook, no work (median)',
      value: round(hook),
      unit: 'ms',
      floor: round(floor),
      floor_name: 'node -e 0',
      target: '≤ 1.5× floor',
    },
    {
      name: 'bd show peak RSS',
      value: Math.round((rss.bd ?? 0) / 1024),
      unit: 'MB',
      floor: Math.round((rss.floor ?? 0) / 1024),
      floor_name: 'node -e 0',
      target: '≤ 80 MB',
    },
    {
      name: 'gc hook peak RSS',
      value: Math.round((rss.hook ?? 0) / 1024),
      unit: 'MB',
      floor: Math.round((rss.floor ?? 0) / 1024),
      floor_name: 'node -e 0',
      target: '≤ 80 MB',
    },
    {
      name: `${BEADS} beads through ${AGENTS} mock agents (step ${WORK_MS} ms), wall time`,
      value: Math.round(loopMs),
      unit: 'ms',
      floor: Math.round(aloneMs),
      floor_name: 'the scripted steps alone',
      target: '≤ 1.5× floor',
    },
    {
      name: `${BEADS} beads through ${AGENTS} mock agents (step ${WORK_MS} ms), against the steps with their process starts`,
      value: Math.round(loopMs),
      unit: 'ms',
      floor: Math.round(startsMs),
      floor_name: `the scripted steps with ${COMMANDS_PER_BEAD} node starts per bead`,
      target: '≤ 1.5× floor',
    },
  ];
  process.stdout.write(
    JSON.stringify({
      scenario: 'work',
      mode: quick ? 'quick' : 'full',
      runs: RUNS,
      beads: BEADS,
      agents: AGENTS,
      closed_once: closedOnce,
      // Where the loop's time goes: the supervisor's own CPU over it, and the claims lost to a race.
      loop_supervisor_cpu_ms: Math.round(supCpu),
      loop_claims_rejected: rejected.items.length,
      figures,
    }) + '\n',
  );
} finally {
  await stopSupervisor();
  try {
    execFileSync('tmux', ['-L', tmuxSocketFor(CITY, home), 'kill-server'], { stdio: 'ignore' });
  } catch {
    // no server
  }
  await rm(root, { recursive: true, force: true });
}
