/**
 * `node dist/bench/agents.js`: the agents' figures (issue 15), printed as ONE JSON line on stdout (progress
 * on stderr). An in-process supervisor (`runSupervisor`, temp GC_HOME, port 0, file journal) runs the
 * city's bead store, sessions and agents services; every figure sits beside a floor measured in the same run,
 * interleaved with it round by round (two shared cores make separate phases incomparable):
 *
 * 1. pool scale-up from 0 to POOL mock-agent sessions on tmux. Each round: a fresh GC_HOME, `POST /v0/city
 *    {provider: mock}`, the supervisor closed, `[[agent]] name = "worker" provider = "mock"
 *    min_active_sessions = max_active_sessions = POOL` appended to city.toml, and the supervisor started again
 *    on the same GC_HOME. Timed until the city's session book holds POOL `active` sessions (polled in process
 *    every 5 ms), from the agents service's start (the figure: where the pool's creates begin), from the
 *    supervisor's start (that also holds Fastify compiling every route, seconds on a loaded machine) and from
 *    the city reading `running` in GET /v0/cities (which comes after the first creates); then until GET
 *    /v0/city/{c}/agents shows worker-1..POOL `idle`. Run with the default `maxWakesPerTick` (5) and raised
 *    to POOL. The runtime's `start` is wrapped to count how many starts were in flight at once.
 *    Floor: POOL raw `tmux new-session -d` of the same mock agent command (mockAgentCommand) on a tmux server
 *    of the bench's own, each polled until `❯` shows in `capture-pane`, with at most 5 (the product's
 *    default per pass) and with all POOL in flight at once.
 * 2. `GET /v0/city/{c}/agents` with AGENTS singleton agents (`min_active_sessions = 1`, so each has a
 *    session) on the in-memory fake runtime, once all are active: warm-up, then GETS requests alternating
 *    with a bare Fastify GET answering the same bytes. The service's `list()` called in process is timed too.
 *
 * Sizes: BENCH_QUICK=1, or BENCH_AGENTS_POOL, _ROUNDS, _AGENTS, _GETS.
 * Effects: temp dirs, tmux servers (each round's city server and the raw floor's: killed after each round,
 * also on failure), mock agent processes inside them, loopback sockets.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { pino } from 'pino';
import { AGENT_SERVICE } from '../actors/agents/agentApi.ts';
import type { AgentService } from '../actors/agents/agentService.ts';
import { agentServiceFactory } from '../actors/agents/startAgentService.ts';
import { loadConfig } from '../actors/supervisor/supervisorConfig.ts';
import type { CityServiceFactory } from '../actors/runtime/cityServices.ts';
import { beadStoreService } from '../actors/beads/index.ts';
import { mockAgentCommand } from '../actors/sessions/runtime/presets.ts';
import { hasReadyLine } from '../actors/sessions/runtime/screen.ts';
import type { SessionService } from '../actors/sessions/sessionService.ts';
import {
  sessionServiceFactory,
  type SessionServiceFactoryOptions,
} from '../actors/sessions/startSessionService.ts';
import { runSupervisor, type RunningSupervisor } from '../http/main.ts';
import { tmuxSocketFor } from '../schemas/sessionRuntime.ts';
import { fakeHost, waitForTerminal } from '../test/helpers/supervisor.ts';
import { httpClient, killTmuxServer, round, summary, tmux, until } from './sessionsKit.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const size = (name: string, full: number, small: number): number =>
  Number(process.env[`BENCH_AGENTS_${name}`] ?? (quick ? small : full));
const sizes = {
  pool: size('POOL', 20, 20),
  rounds: size('ROUNDS', 3, 1),
  agents: size('AGENTS', 200, 200),
  gets: size('GETS', 1000, 200),
  get_warmup: 20,
};
const DEFAULT_WAKES = 5;
const RAW_POLL_MS = 10;
const log = (message: string): void => void process.stderr.write(`bench agents: ${message}\n`);
const PROMPT = '❯';
const CITY = 'bench-agents';

interface Accepted {
  request_id: string;
}

function fig(name: string, value: number, unit: string, floor?: [number, string], target?: string): object {
  return {
    name,
    value: round(value),
    unit,
    ...(floor ? { floor: round(floor[0]), floor_name: floor[1] } : {}),
    ...(target ? { target } : {}),
  };
}

const median = (values: readonly number[]): number => summary(values).p50;

/** What a supervisor started: its services by kind, and the start concurrency its runtime saw. */
interface Kept {
  sessions?: SessionService;
  agents?: AgentService;
  inFlight: number;
  peakInFlight: number;
  startMs: number[];
  /** `performance.now()` when the sessions / agents services began starting. */
  sessionsAt: number;
  agentsAt: number;
}

/** A supervisor on GC_HOME `gcHome` running beads, sessions (`sessions`) and agents; keeps the services. */
async function supervisor(
  gcHome: string,
  home: string,
  sessions: SessionServiceFactoryOptions,
): Promise<{ running: RunningSupervisor; kept: Kept }> {
  const kept: Kept = { inFlight: 0, peakInFlight: 0, startMs: [], sessionsAt: 0, agentsAt: 0 };
  const factory = sessionServiceFactory(sessions);
  const keepingSessions: CityServiceFactory = {
    ...factory,
    start: async (city) => {
      kept.sessionsAt = performance.now();
      const started = await factory.start(city);
      const service = started.service as SessionService;
      kept.sessions = service;
      // Counted before the agents service starts (it creates the sessions), so every start is seen.
      const runtime = service.runtime;
      const start = runtime.start.bind(runtime);
      runtime.start = async (...args) => {
        kept.inFlight++;
        kept.peakInFlight = Math.max(kept.peakInFlight, kept.inFlight);
        const began = performance.now();
        try {
          return await start(...args);
        } finally {
          kept.inFlight--;
          kept.startMs.push(performance.now() - began);
        }
      };
      return started;
    },
  };
  const keepingAgents: CityServiceFactory = {
    ...agentServiceFactory,
    start: async (city) => {
      kept.agentsAt = performance.now();
      const started = await agentServiceFactory.start(city);
      kept.agents = started.service as AgentService;
      return started;
    },
  };
  const config = { ...loadConfig({ GC_HOME: gcHome }), port: 0, bind: '127.0.0.1' };
  const running = await runSupervisor(config, {
    services: [beadStoreService, keepingSessions, keepingAgents],
    host: fakeHost(home, { bins: ['sh', 'node'] }),
    logger: pino({ name: 'gc-bench-agents', level: 'warn' }, pino.destination({ fd: 2, sync: true })),
  });
  return { running, kept };
}

/** Creates the city with provider `mock` on a first supervisor, closes it, and appends `tables` to city.toml. */
async function prepareCity(
  gcHome: string,
  home: string,
  sessions: SessionServiceFactoryOptions,
  tables: string,
): Promise<string> {
  const dir = join(home, CITY);
  const first = await supervisor(gcHome, home, sessions);
  const http = httpClient(first.running.url);
  try {
    const accepted = await http.json<Accepted>('POST', '/v0/city', 202, { dir, provider: 'mock' });
    const done = await waitForTerminal(first.running.supervisor.log.journal, accepted.request_id, 60_000);
    if (done.type !== 'request.result.city.create')
      throw new Error(`city ${CITY} not created: ${JSON.stringify(done.payload)}`);
  } finally {
    http.close();
    await first.running.close();
  }
  await appendFile(join(dir, 'city.toml'), tables);
  return dir;
}

const poolTable = (n: number): string =>
  `\n[[agent]]\nname = "worker"\nprovider = "mock"\nmin_active_sessions = ${n}\nmax_active_sessions = ${n}\n`;

/** The number of the city's open sessions that read `active`. */
const activeCount = (s: SessionService | undefined): number =>
  s ? s.book.openSessions().filter((x) => x.state === 'active').length : 0;

interface ScaleUp {
  wakes: number;
  from_start_ms: number;
  from_running_ms: number;
  /** From the start until GET /agents shows every slot idle (polled after the book said all active). */
  agents_idle_ms: number;
  /** From the agents service's start (the city's `validating_agents` phase: the pool's first creates). */
  from_agents_service_ms: number;
  supervisor_returned_ms: number;
  sessions_service_ms: number;
  agents_service_ms: number;
  city_running_ms: number;
  first_created_ms: number;
  /** When the book first held all `pool` sessions (the agents service creates them one by one). */
  all_created_ms: number;
  peak_starts_in_flight: number;
  runtime_start_ms: ReturnType<typeof summary>;
}

/** One scale-up round from 0 to `pool` with `wakes` starts per pass; its own GC_HOME and tmux server. */
async function scaleUp(root: string, pool: number, wakes: number): Promise<ScaleUp> {
  const gcHome = join(root, 'gchome');
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  const socket = tmuxSocketFor(CITY, gcHome);
  const options: SessionServiceFactoryOptions = {
    runtime: 'tmux',
    thresholds: { maxWakesPerTick: wakes },
    env: { GC_MOCK_LOG_DIR: join(root, 'agent-logs') },
  };
  let sup: { running: RunningSupervisor; kept: Kept } | undefined;
  try {
    await prepareCity(gcHome, home, options, poolTable(pool));
    await killTmuxServer(socket); // the create started no session; nothing may be left to adopt
    const t0 = performance.now();
    sup = await supervisor(gcHome, home, options);
    const returnedAt = performance.now();
    const { running, kept } = sup;
    const http = httpClient(running.url);
    try {
      let runningAt = 0;
      let firstCreatedAt = 0;
      let allActiveAt = 0;
      let allCreatedAt = 0;
      // The city's `running` over HTTP, and the book in process, watched side by side.
      const cityRunning = until(
        `city ${CITY} running`,
        async () => {
          const body = await http.json<{ items: Array<{ name: string; running: boolean }> }>(
            'GET',
            '/v0/cities',
            200,
          );
          runningAt = performance.now();
          return body.items.some((c) => c.name === CITY && c.running);
        },
        60_000,
        5,
      );
      const active = until(
        `${pool} active sessions (wakes ${wakes})`,
        () => {
          const now = performance.now();
          const created = kept.sessions?.book.openSessions().length ?? 0;
          if (!firstCreatedAt && created > 0) firstCreatedAt = now;
          if (!allCreatedAt && created >= pool) allCreatedAt = now;
          allActiveAt = now;
          return activeCount(kept.sessions) >= pool;
        },
        180_000,
        5,
      );
      await Promise.all([cityRunning, active]);
      const rt = kept.sessions?.runtime;
      if (rt?.kind !== 'tmux' || !('socket' in rt) || rt.socket !== socket)
        throw new Error(`the city runtime is not tmux on ${socket} (the bench could not clean it up)`);
      const names = Array.from({ length: pool }, (_, i) => `worker-${i + 1}`);
      let idleAt = 0;
      await until(
        `worker-1..${pool} idle in GET /agents`,
        async () => {
          const body = await http.json<{ items: Array<{ name: string; state: string }> }>(
            'GET',
            `/v0/city/${CITY}/agents`,
            200,
          );
          idleAt = performance.now();
          return names.every((n) => body.items.find((a) => a.name === n)?.state === 'idle');
        },
        30_000,
        5,
      );
      const open = kept.sessions?.book.openSessions().length;
      if (open !== pool) throw new Error(`${open} open sessions, not ${pool}`);
      return {
        wakes,
        from_start_ms: allActiveAt - t0,
        from_running_ms: allActiveAt - runningAt,
        agents_idle_ms: idleAt - t0,
        from_agents_service_ms: allActiveAt - kept.agentsAt,
        supervisor_returned_ms: returnedAt - t0,
        sessions_service_ms: kept.sessionsAt - t0,
        agents_service_ms: kept.agentsAt - t0,
        city_running_ms: runningAt - t0,
        first_created_ms: firstCreatedAt - t0,
        all_created_ms: allCreatedAt - t0,
        peak_starts_in_flight: kept.peakInFlight,
        runtime_start_ms: summary(kept.startMs),
      };
    } finally {
      http.close();
    }
  } finally {
    await sup?.running.close().catch((err: unknown) => log(`close failed: ${(err as Error).message}`));
    await killTmuxServer(socket);
  }
}

/** Floor: `pool` raw mock agents on a private tmux server, at most `concurrency` starting at once. */
async function rawStarts(root: string, pool: number, concurrency: number): Promise<number> {
  const socket = `gc-bench-agents-raw-${process.pid}`;
  const dir = join(root, 'raw');
  const logs = join(root, 'raw-logs');
  await mkdir(dir, { recursive: true });
  try {
    const startOne = async (i: number): Promise<void> => {
      const name = `raw-${i}`;
      await tmux(socket, [
        'new-session',
        '-d',
        '-s',
        name,
        '-c',
        dir,
        '-x',
        '200',
        '-y',
        '50',
        '-e',
        `GC_MOCK_LOG_DIR=${logs}`,
        mockAgentCommand('--session-id', randomUUID()),
      ]);
      await until(
        `raw session ${name} prompt`,
        async () => hasReadyLine(await tmux(socket, ['capture-pane', '-p', '-t', `=${name}:`]), PROMPT),
        30_000,
        RAW_POLL_MS,
      );
    };
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, pool) }, async () => {
        while (next < pool) await startOne(next++);
      }),
    );
    const ms = performance.now() - started;
    const panes = (await tmux(socket, ['list-panes', '-a'])).trim().split('\n').length;
    if (panes !== pool) throw new Error(`raw server shows ${panes} panes, not ${pool}`);
    return ms;
  } finally {
    await killTmuxServer(socket);
  }
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'gc-bench-agents-'));
  const out: Record<string, unknown> = { scenario: 'agents', mode: quick ? 'quick' : 'full', sizes };
  const figures: object[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  try {
    cleanups.push(() => rm(root, { recursive: true, force: true }));

    // ---- 1. pool scale-up 0 → pool on tmux, against raw starts ----
    const { pool } = sizes;
    const raised = Math.max(pool, DEFAULT_WAKES);
    const runs = {
      api_default: [] as ScaleUp[],
      api_raised: [] as ScaleUp[],
      raw_default: [] as number[],
      raw_parallel: [] as number[],
    };
    let n = 0;
    for (let r = 0; r < sizes.rounds; r++) {
      // Alternating the order round by round: neither always follows the other's load.
      const steps: Array<() => Promise<void>> = [
        async () => void runs.raw_default.push(await rawStarts(join(root, `r${n++}`), pool, DEFAULT_WAKES)),
        async () => void runs.api_default.push(await scaleUp(join(root, `r${n++}`), pool, DEFAULT_WAKES)),
        async () => void runs.raw_parallel.push(await rawStarts(join(root, `r${n++}`), pool, pool)),
        async () => void runs.api_raised.push(await scaleUp(join(root, `r${n++}`), pool, raised)),
      ];
      if (r % 2 === 1) steps.reverse();
      for (const step of steps) await step();
      const last = (xs: ScaleUp[]) => round(xs.at(-1)!.from_start_ms, 0);
      log(
        `round ${r + 1}/${sizes.rounds}: default ${last(runs.api_default)} ms (raw@5 ` +
          `${round(runs.raw_default.at(-1)!, 0)}), raised ${last(runs.api_raised)} ms (raw@${pool} ` +
          `${round(runs.raw_parallel.at(-1)!, 0)})`,
      );
    }
    type Timed = 'from_agents_service_ms' | 'from_start_ms' | 'from_running_ms' | 'agents_idle_ms';
    const pick = (xs: ScaleUp[]) => (k: Timed) => median(xs.map((x) => x[k]));
    const dflt = pick(runs.api_default);
    const rsd = pick(runs.api_raised);
    const rawDefault = median(runs.raw_default);
    const rawParallel = median(runs.raw_parallel);
    out.scale_up = {
      pool,
      rounds: sizes.rounds,
      raw_poll_ms: RAW_POLL_MS,
      api_default_wakes: runs.api_default,
      api_raised_wakes: runs.api_raised,
      raw_concurrency_5_ms: runs.raw_default.map((x) => round(x)),
      raw_all_parallel_ms: runs.raw_parallel.map((x) => round(x)),
    };
    const floor5 = `${pool} raw tmux starts until ❯, 5 at a time (median)`;
    const floorAll = `${pool} raw tmux starts until ❯, all at once (median)`;
    const scale = (wakes: number, from: string) =>
      `pool scale-up 0 → ${pool} active, mock agent on tmux, maxWakesPerTick ${wakes}, from ${from} (median)`;
    figures.push(
      fig(
        scale(DEFAULT_WAKES, 'agents service start'),
        dflt('from_agents_service_ms'),
        'ms',
        [rawDefault, floor5],
        '≤ 2 × floor',
      ),
      fig(scale(DEFAULT_WAKES, 'supervisor start'), dflt('from_start_ms'), 'ms', [rawDefault, floor5]),
      fig(scale(DEFAULT_WAKES, 'city running in GET /v0/cities'), dflt('from_running_ms'), 'ms', [
        rawDefault,
        floor5,
      ]),
      fig(
        `pool scale-up 0 → ${pool}, maxWakesPerTick ${DEFAULT_WAKES}, supervisor start until GET /agents shows all idle`,
        dflt('agents_idle_ms'),
        'ms',
      ),
      fig(
        scale(raised, 'agents service start'),
        rsd('from_agents_service_ms'),
        'ms',
        [rawParallel, floorAll],
        '≤ 2 × floor',
      ),
      fig(scale(raised, 'supervisor start'), rsd('from_start_ms'), 'ms', [rawParallel, floorAll]),
    );

    // ---- 2. GET /agents with `agents` agents and their sessions (fake runtime) ----
    log(`list: ${sizes.agents} agents on the fake runtime`);
    const listRoot = join(root, 'list');
    const gcHome = join(listRoot, 'gchome');
    const home = join(listRoot, 'home');
    await mkdir(home, { recursive: true });
    const fake: SessionServiceFactoryOptions = { runtime: 'fake' };
    const width = String(sizes.agents).length;
    const tables = Array.from(
      { length: sizes.agents },
      (_, i) =>
        `\n[[agent]]\nname = "agent-${String(i + 1).padStart(width, '0')}"\nprovider = "mock"\n` +
        'min_active_sessions = 1\n',
    ).join('');
    await prepareCity(gcHome, home, fake, tables);
    const listStarted = performance.now();
    const fakeSup = await supervisor(gcHome, home, fake);
    cleanups.push(() => fakeSup.running.close());
    await until(
      `${sizes.agents} active sessions (fake runtime)`,
      () => activeCount(fakeSup.kept.sessions) >= sizes.agents,
      300_000,
      20,
    );
    const listSeconds = (performance.now() - listStarted) / 1000;
    const agentsPath = `/v0/city/${CITY}/agents`;
    const apiGet = httpClient(fakeSup.running.url, 1);
    cleanups.push(async () => apiGet.close());
    await until(
      `${sizes.agents} agents idle in GET /agents`,
      async () => {
        const body = JSON.parse((await apiGet.send('GET', agentsPath)).body) as {
          items?: Array<{ state: string }>;
        };
        return (body.items ?? []).filter((a) => a.state === 'idle').length >= sizes.agents;
      },
      30_000,
      20,
    );
    const body = (await apiGet.send('GET', agentsPath)).body;
    const total = (JSON.parse(body) as { total: number }).total;
    if (total !== sizes.agents) throw new Error(`GET /agents lists ${total} agents, not ${sizes.agents}`);
    const bare = Fastify({ logger: false });
    bare.get('/agents', async (_req, reply) => reply.type('application/json').send(body));
    const bareBase = await bare.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => bare.close());
    const bareGet = httpClient(bareBase, 1);
    cleanups.push(async () => bareGet.close());
    const timed = async (client: ReturnType<typeof httpClient>, path: string): Promise<number> => {
      const started = performance.now();
      const res = await client.send('GET', path);
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
      return ms;
    };
    const apiMs: number[] = [];
    const bareMs: number[] = [];
    log(`list: GET ${agentsPath} × ${sizes.gets}`);
    for (let i = 0; i < sizes.gets + sizes.get_warmup; i++) {
      const api = () => timed(apiGet, agentsPath);
      const floor = () => timed(bareGet, '/agents');
      const pair = i % 2 === 0 ? { a: await api(), b: await floor() } : { b: await floor(), a: await api() };
      if (i < sizes.get_warmup) continue;
      apiMs.push(pair.a);
      bareMs.push(pair.b);
    }
    // The service's own share (no HTTP, no serialisation).
    const agentService = fakeSup.kept.agents;
    if (!agentService) throw new Error(`city ${CITY} started no ${AGENT_SERVICE} service`);
    const serviceMs: number[] = [];
    for (let i = 0; i < Math.min(sizes.gets, 200) + sizes.get_warmup; i++) {
      const started = performance.now();
      await agentService.list({});
      if (i >= sizes.get_warmup) serviceMs.push(performance.now() - started);
    }
    const api = summary(apiMs);
    const bareSummary = summary(bareMs);
    out.list = {
      agents: total,
      seconds_to_start_them: round(listSeconds, 1),
      api,
      bare: bareSummary,
      service_list: summary(serviceMs),
      bytes: Buffer.byteLength(body),
    };
    figures.push(
      fig(
        `GET /agents p99, ${total} agents and their sessions (fake runtime)`,
        api.p99,
        'ms',
        [bareSummary.p99, 'bare Fastify GET, same body, p99'],
        '≤ 20 ms',
      ),
      fig(`GET /agents p50, ${total} agents and their sessions`, api.p50, 'ms', [
        bareSummary.p50,
        'bare Fastify GET, same body, p50',
      ]),
    );

    out.ratios = {
      scale_up_default_to_raw5: round(dflt('from_agents_service_ms') / rawDefault),
      scale_up_default_to_raw_parallel: round(dflt('from_agents_service_ms') / rawParallel),
      scale_up_default_from_supervisor_start_to_raw5: round(dflt('from_start_ms') / rawDefault),
      scale_up_raised_to_raw_parallel: round(rsd('from_agents_service_ms') / rawParallel),
      scale_up_raised_from_supervisor_start_to_raw_parallel: round(rsd('from_start_ms') / rawParallel),
      list_p99: round(api.p99 / bareSummary.p99),
    };
    out.targets = {
      scale_up_default_le_2x_raw5: dflt('from_agents_service_ms') <= 2 * rawDefault,
      scale_up_raised_le_2x_raw_parallel: rsd('from_agents_service_ms') <= 2 * rawParallel,
      list_p99_le_20ms: api.p99 <= 20,
    };
    out.figures = figures;
  } finally {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((err: unknown) => log(`cleanup failed: ${(err as Error).message}`));
    }
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

await main();
