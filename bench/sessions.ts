/**
 * `node dist/bench/sessions.js`: the sessions' figures, printed as ONE JSON line on stdout (progress on
 * stderr). An in-process supervisor (`runSupervisor`, temp GC_HOME, port 0, file journal) runs a city on
 * the tmux runtime with the repository's mock agent; every figure sits beside a floor measured in the same
 * run, interleaved with it where it can be (two shared cores make separate phases incomparable):
 *
 * 1. create: `POST /sessions` → `request.result.session.create` on the city stream (one stream connection
 *    held open for the run, as a client following the city), against a raw `tmux new-session -d` of the
 *    same mock agent command on a tmux server of the bench's own, until `❯` shows in `capture-pane`.
 * 2. message: `POST /session/{id}/messages` → `echo: <text>` in the agent's conversation log, against a raw
 *    `tmux send-keys -l <text>` + Enter to a raw mock agent until its reply is in its log. Both logs are
 *    polled the same way (size every 2 ms, appended bytes read).
 * 3. reconciler tick with LIVE sessions live in the city: `tickMs` of passes run by `reconciler.tick()` on
 *    the city's SessionService (kept by wrapping the service factory), against one raw `tmux list-panes -a`
 *    on the city's own tmux server (the batched observation a pass cannot do without).
 * 4. `GET /sessions` with LIST sessions (a second supervisor, the in-memory fake runtime, which starts at
 *    once), default page and `?limit=1000`, against a bare Fastify GET answering the same bytes.
 *    The service's `list()` called in process is timed too (its share without HTTP and serialisation).
 *
 * Sizes: BENCH_QUICK=1, or BENCH_SESSIONS_CREATES, _MESSAGES, _LIVE, _TICKS, _LIST, _GETS.
 * Effects: temp dirs, two tmux servers (the city's and the raw floor's: both killed at the end, also on
 * failure), mock agent processes inside them, loopback sockets.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { pino } from 'pino';
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
import { K } from '../machines/sessions/sessionRecord.ts';
import { runSupervisor, type RunningSupervisor } from '../http/main.ts';
import { fakeHost, waitForTerminal } from '../test/helpers/supervisor.ts';
import {
  GrowingFile,
  httpClient,
  killTmuxServer,
  round,
  summary,
  TerminalFollower,
  tmux,
  until,
} from './sessionsKit.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const size = (name: string, full: number, small: number): number =>
  Number(process.env[`BENCH_SESSIONS_${name}`] ?? (quick ? small : full));
const sizes = {
  creates: size('CREATES', 40, 10),
  create_warmup: 3,
  messages: size('MESSAGES', 40, 10),
  message_warmup: 3,
  live: size('LIVE', 100, 100),
  ticks: size('TICKS', 300, 60),
  list: size('LIST', 1000, 1000),
  gets: size('GETS', 1000, 200),
  get_warmup: 20,
};
const log = (message: string): void => void process.stderr.write(`bench sessions: ${message}\n`);
const PROMPT = '❯';

interface Accepted {
  request_id: string;
  event_cursor: string;
}

interface SessionViewLite {
  id: string;
  state: string;
  running: boolean;
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

/** A supervisor with `sessions` as its city session service, and the service objects it starts by city. */
async function supervisor(
  root: string,
  sessions: SessionServiceFactoryOptions,
): Promise<{ running: RunningSupervisor; home: string; cities: Map<string, SessionService> }> {
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  const cities = new Map<string, SessionService>();
  const factory = sessionServiceFactory(sessions);
  const keeping: CityServiceFactory = {
    ...factory,
    start: async (city) => {
      const started = await factory.start(city);
      cities.set(city.name, started.service as SessionService);
      return started;
    },
  };
  const config = { ...loadConfig({ GC_HOME: join(root, 'gchome') }), port: 0, bind: '127.0.0.1' };
  const running = await runSupervisor(config, {
    services: [beadStoreService, keeping],
    host: fakeHost(home, { bins: ['sh', 'node'] }),
    logger: pino({ name: 'gc-bench-sessions', level: 'warn' }, pino.destination({ fd: 2, sync: true })),
  });
  return { running, home, cities };
}

/** Creates the city `name` with provider `mock` and waits for its session service and routes. */
async function mockCity(
  sup: { running: RunningSupervisor; home: string; cities: Map<string, SessionService> },
  name: string,
): Promise<SessionService> {
  const http = httpClient(sup.running.url);
  try {
    const accepted = await http.json<Accepted>('POST', '/v0/city', 202, {
      dir: join(sup.home, name),
      provider: 'mock',
    });
    const done = await waitForTerminal(sup.running.supervisor.log.journal, accepted.request_id, 60_000);
    if (done.type !== 'request.result.city.create')
      throw new Error(`city ${name} not created: ${JSON.stringify(done.payload)}`);
    await until(
      `sessions of city ${name}`,
      async () => (await http.send('GET', `/v0/city/${name}/sessions`)).status === 200,
      30_000,
      20,
    );
  } finally {
    http.close();
  }
  const service = sup.cities.get(name);
  if (!service) throw new Error(`city ${name} started no session service`);
  return service;
}

/** Waits until `want` sessions of the city read `active` (running on the runtime). */
async function allActive(base: string, path: string, want: number, timeoutMs: number): Promise<void> {
  const http = httpClient(base);
  try {
    let seen = 0;
    await until(
      `${want} active sessions (last seen ${seen})`,
      async () => {
        seen = (await http.json<{ total: number }>('GET', `${path}/sessions?state=active&limit=1`, 200))
          .total;
        return seen >= want;
      },
      timeoutMs,
      250,
    );
  } finally {
    http.close();
  }
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'gc-bench-sessions-'));
  const rawSocket = `gc-bench-raw-${process.pid}`;
  const rawDir = join(root, 'raw');
  const rawLogs = join(root, 'raw-logs');
  const cityLogs = join(root, 'agent-logs');
  const out: Record<string, unknown> = { scenario: 'sessions', mode: quick ? 'quick' : 'full', sizes };
  const figures: object[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const cleanupAll = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((err: unknown) => log(`cleanup failed: ${(err as Error).message}`));
    }
  };
  try {
    await mkdir(rawDir, { recursive: true });
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    cleanups.push(() => killTmuxServer(rawSocket));

    // ---- the tmux city ----
    log('starting a supervisor with the tmux runtime');
    const sup = await supervisor(join(root, 'tmux-sup'), {
      runtime: 'tmux',
      env: { GC_MOCK_LOG_DIR: cityLogs },
    });
    const tmuxCity = { socket: '' };
    // Registered after the raw server's kill and the dir's removal: runs before them.
    cleanups.push(async () => {
      await sup.running.close();
      if (tmuxCity.socket) await killTmuxServer(tmuxCity.socket);
    });
    const CITY = 'bench-tmux';
    const service = await mockCity(sup, CITY);
    const runtime = service.runtime;
    if (runtime.kind !== 'tmux' || !('socket' in runtime) || typeof runtime.socket !== 'string')
      throw new Error(`the city runtime is ${runtime.kind}, not tmux`);
    tmuxCity.socket = runtime.socket;
    const citySocket = runtime.socket;
    const base = `/v0/city/${CITY}`;
    const http = httpClient(sup.running.url);
    cleanups.push(async () => http.close());
    const head = (await http.json<{ total: number }>('GET', `${base}/events?limit=1`, 200)).total;
    const follower = await TerminalFollower.open(`${sup.running.url}${base}/events/stream?after_seq=${head}`);
    cleanups.push(() => follower.close());

    // ---- 1. create → request.result.session.create, against raw new-session until the prompt ----
    const rawCreate = async (i: number): Promise<{ ms: number; name: string; key: string }> => {
      const name = `raw-${i}`;
      const key = randomUUID();
      const started = performance.now();
      await tmux(rawSocket, [
        'new-session',
        '-d',
        '-s',
        name,
        '-c',
        rawDir,
        '-x',
        '200',
        '-y',
        '50',
        '-e',
        `GC_MOCK_LOG_DIR=${rawLogs}`,
        mockAgentCommand('--session-id', key),
      ]);
      let at = 0;
      await until(
        `raw session ${name} prompt`,
        async () => {
          const screen = await tmux(rawSocket, ['capture-pane', '-p', '-t', `=${name}:`]);
          at = performance.now();
          return hasReadyLine(screen, PROMPT);
        },
        30_000,
        3,
      );
      return { ms: at - started, name, key };
    };
    const apiCreate = async (): Promise<{ ms: number; accepted_ms: number; id: string }> => {
      const started = performance.now();
      const accepted = await http.json<Accepted>('POST', `${base}/sessions`, 202, {});
      const acceptedAt = performance.now();
      const done = await follower.wait(accepted.request_id, 90_000);
      const session = done.payload.session as SessionViewLite | undefined;
      if (done.type !== 'request.result.session.create' || session?.state !== 'active')
        throw new Error(`create ${accepted.request_id} ended ${done.type}: ${JSON.stringify(done.payload)}`);
      if (done.seq <= Number(accepted.event_cursor))
        throw new Error(`create ${accepted.request_id}: its result precedes its event_cursor`);
      return { ms: done.at - started, accepted_ms: acceptedAt - started, id: session.id };
    };
    const createMs: number[] = [];
    const acceptedMs: number[] = [];
    const rawCreateMs: number[] = [];
    const apiSessions: string[] = [];
    const rawSessions: Array<{ name: string; key: string }> = [];
    const createRounds = sizes.creates + sizes.create_warmup;
    for (let i = 0; i < createRounds; i++) {
      log(`create ${i + 1}/${createRounds}`);
      // Alternating which goes first: neither always follows the other's load.
      const pair =
        i % 2 === 0
          ? { raw: await rawCreate(i), api: await apiCreate() }
          : { api: await apiCreate(), raw: await rawCreate(i) };
      apiSessions.push(pair.api.id);
      rawSessions.push({ name: pair.raw.name, key: pair.raw.key });
      if (i < sizes.create_warmup) continue;
      createMs.push(pair.api.ms);
      acceptedMs.push(pair.api.accepted_ms);
      rawCreateMs.push(pair.raw.ms);
    }
    const create = summary(createMs);
    const rawCreateSummary = summary(rawCreateMs);
    out.create = { api: create, api_202: summary(acceptedMs), raw_tmux: rawCreateSummary };
    figures.push(
      fig(
        'session create → request.result.session.create p50 (mock agent, tmux)',
        create.p50,
        'ms',
        [rawCreateSummary.p50, 'raw tmux new-session until ❯ p50'],
        '≤ 1.5 × floor',
      ),
      fig('session create → request.result.session.create p99', create.p99, 'ms', [
        rawCreateSummary.p99,
        'raw tmux new-session until ❯ p99',
      ]),
    );

    // ---- 2. message → echo in the conversation log, against raw send-keys ----
    const target = apiSessions[0]!;
    const key = service.book.find(target)?.meta[K.sessionKey];
    if (!key) throw new Error(`session ${target} has no conversation id`);
    const apiLog = new GrowingFile(join(cityLogs, `${key}.jsonl`));
    const raw = rawSessions[0]!;
    const rawLog = new GrowingFile(join(rawLogs, `${raw.key}.jsonl`));
    await apiLog.skipToEnd();
    await rawLog.skipToEnd();
    const rawMessage = async (text: string): Promise<number> => {
      const started = performance.now();
      const pane = `=${raw.name}:`;
      await tmux(rawSocket, [
        'send-keys',
        '-t',
        pane,
        '-l',
        '--',
        text,
        ';',
        'send-keys',
        '-t',
        pane,
        'Enter',
      ]);
      return (await rawLog.waitFor(`echo: ${text}`, 30_000)) - started;
    };
    const apiMessage = async (
      text: string,
    ): Promise<{ ms: number; accepted_ms: number; result_ms: number }> => {
      const started = performance.now();
      const accepted = await http.json<Accepted>('POST', `${base}/session/${target}/messages`, 202, {
        message: text,
      });
      const acceptedAt = performance.now();
      const [echoAt, done] = await Promise.all([
        apiLog.waitFor(`echo: ${text}`, 30_000),
        follower.wait(accepted.request_id, 30_000),
      ]);
      if (done.type !== 'request.result.session.message')
        throw new Error(`message ${accepted.request_id} ended ${done.type}: ${JSON.stringify(done.payload)}`);
      return { ms: echoAt - started, accepted_ms: acceptedAt - started, result_ms: done.at - started };
    };
    const messageMs: number[] = [];
    const messageResultMs: number[] = [];
    const messageAcceptedMs: number[] = [];
    const rawMessageMs: number[] = [];
    const messageRounds = sizes.messages + sizes.message_warmup;
    for (let i = 0; i < messageRounds; i++) {
      const text = `bench message ${i} ${randomUUID().slice(0, 8)}`;
      const pair =
        i % 2 === 0
          ? { raw: await rawMessage(text), api: await apiMessage(text) }
          : { api: await apiMessage(text), raw: await rawMessage(text) };
      if (i < sizes.message_warmup) continue;
      messageMs.push(pair.api.ms);
      messageResultMs.push(pair.api.result_ms);
      messageAcceptedMs.push(pair.api.accepted_ms);
      rawMessageMs.push(pair.raw);
    }
    log(`messages: ${messageRounds} sent`);
    const message = summary(messageMs);
    const rawMessageSummary = summary(rawMessageMs);
    out.message = {
      api_echo_in_log: message,
      api_202: summary(messageAcceptedMs),
      api_result_event: summary(messageResultMs),
      raw_tmux: rawMessageSummary,
    };
    figures.push(
      fig(
        'session message → echo in the conversation log p50',
        message.p50,
        'ms',
        [rawMessageSummary.p50, 'raw tmux send-keys until echo in log p50'],
        '≤ 2 × floor',
      ),
      fig('session message → echo in the conversation log p99', message.p99, 'ms', [
        rawMessageSummary.p99,
        'raw tmux send-keys until echo in log p99',
      ]),
    );
    await killTmuxServer(rawSocket);

    // ---- 3. reconciler tick with `live` live sessions ----
    const more = Math.max(0, sizes.live - apiSessions.length);
    log(`tick: creating ${more} more sessions (${sizes.live} live)`);
    const liveStarted = performance.now();
    let next = 0;
    const failed: string[] = [];
    const creator = async (): Promise<void> => {
      while (next < more) {
        next++;
        const accepted = await http.json<Accepted>('POST', `${base}/sessions`, 202, {});
        const done = await follower.wait(accepted.request_id, 180_000);
        if (done.type !== 'request.result.session.create') failed.push(JSON.stringify(done.payload));
      }
    };
    await Promise.all(Array.from({ length: 8 }, creator));
    if (failed.length > 0) throw new Error(`${failed.length} creates failed, first: ${failed[0]}`);
    await allActive(sup.running.url, base, sizes.live, 120_000);
    const liveSeconds = (performance.now() - liveStarted) / 1000;
    const reconciler = service.reconciler;
    const tickMs: number[] = [];
    const tickCallMs: number[] = [];
    const listPanesMs: number[] = [];
    const observePanes = async (): Promise<number> => {
      const started = performance.now();
      const panes = await tmux(citySocket, ['list-panes', '-a']);
      const ms = performance.now() - started;
      if (panes.trim().split('\n').length < sizes.live) throw new Error('list-panes shows too few panes');
      return ms;
    };
    for (let i = 0; i < sizes.ticks + 10; i++) {
      const before = reconciler.tickMs.length;
      const started = performance.now();
      await reconciler.tick();
      const callMs = performance.now() - started;
      const floorMs = await observePanes();
      if (i < 10) continue;
      // A pass that had nothing to observe records no duration; the last entry is this tick's pass.
      if (reconciler.tickMs.length !== before) tickMs.push(reconciler.tickMs.at(-1)!);
      tickCallMs.push(callMs);
      listPanesMs.push(floorMs);
    }
    const openNow = service.book.openSessions().length;
    const tick = summary(tickMs);
    const listPanes = summary(listPanesMs);
    out.tick = {
      live_sessions: openNow,
      seconds_to_start_them: round(liveSeconds, 1),
      pass_ms: tick,
      tick_call_ms: summary(tickCallMs),
      raw_list_panes_ms: listPanes,
    };
    figures.push(
      fig(
        `reconciler tick p99, ${openNow} live sessions (tmux)`,
        tick.p99,
        'ms',
        [listPanes.p99, 'raw tmux list-panes -a p99'],
        '≤ 50 ms',
      ),
      fig(`reconciler tick p50, ${openNow} live sessions (tmux)`, tick.p50, 'ms', [
        listPanes.p50,
        'raw tmux list-panes -a p50',
      ]),
    );
    log('stopping the tmux city');
    await cleanupAll();
    await mkdir(root, { recursive: true });
    cleanups.push(() => rm(root, { recursive: true, force: true }));

    // ---- 4. GET /sessions with `list` sessions (fake runtime) ----
    log(`list: a supervisor with the fake runtime, ${sizes.list} sessions`);
    const fakeSup = await supervisor(join(root, 'fake-sup'), { runtime: 'fake' });
    cleanups.push(() => fakeSup.running.close());
    const FAKE = 'bench-fake';
    const fakeService = await mockCity(fakeSup, FAKE);
    const fakeBase = `/v0/city/${FAKE}`;
    const fakeHttp = httpClient(fakeSup.running.url, 16);
    cleanups.push(async () => fakeHttp.close());
    const listStarted = performance.now();
    let made = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (made < sizes.list) {
          made++;
          await fakeHttp.json<Accepted>('POST', `${fakeBase}/sessions`, 202, {});
        }
      }),
    );
    await allActive(fakeSup.running.url, fakeBase, sizes.list, 300_000);
    const listSeconds = (performance.now() - listStarted) / 1000;
    const paths = { page: `${fakeBase}/sessions`, all: `${fakeBase}/sessions?limit=1000` };
    const bodies = {
      page: (await fakeHttp.send('GET', paths.page)).body,
      all: (await fakeHttp.send('GET', paths.all)).body,
    };
    const bare = Fastify({ logger: false });
    bare.get('/page', async (_req, reply) => reply.type('application/json').send(bodies.page));
    bare.get('/all', async (_req, reply) => reply.type('application/json').send(bodies.all));
    const bareBase = await bare.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => bare.close());
    const apiGet = httpClient(fakeSup.running.url, 1);
    const bareGet = httpClient(bareBase, 1);
    cleanups.push(async () => {
      apiGet.close();
      bareGet.close();
    });
    const timed = async (client: ReturnType<typeof httpClient>, path: string): Promise<number> => {
      const started = performance.now();
      const res = await client.send('GET', path);
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
      return ms;
    };
    const gets: Record<'page' | 'all', { api: number[]; bare: number[] }> = {
      page: { api: [], bare: [] },
      all: { api: [], bare: [] },
    };
    for (const which of ['page', 'all'] as const) {
      log(`list: GET ${paths[which]} × ${sizes.gets}`);
      for (let i = 0; i < sizes.gets + sizes.get_warmup; i++) {
        const api = () => timed(apiGet, paths[which]);
        const floor = () => timed(bareGet, `/${which}`);
        const pair =
          i % 2 === 0 ? { a: await api(), b: await floor() } : { b: await floor(), a: await api() };
        if (i < sizes.get_warmup) continue;
        gets[which].api.push(pair.a);
        gets[which].bare.push(pair.b);
      }
    }
    // The service's own share (no HTTP, no serialisation): the same lists called in process.
    const serviceMs: Record<'page' | 'all', number[]> = { page: [], all: [] };
    for (let i = 0; i < Math.min(sizes.gets, 200) + sizes.get_warmup; i++) {
      for (const which of ['page', 'all'] as const) {
        const started = performance.now();
        await fakeService.list(which === 'page' ? {} : { limit: 1000 });
        if (i >= sizes.get_warmup) serviceMs[which].push(performance.now() - started);
      }
    }
    const page = { api: summary(gets.page.api), bare: summary(gets.page.bare) };
    const all = { api: summary(gets.all.api), bare: summary(gets.all.bare) };
    const total = (JSON.parse(bodies.page) as { total: number }).total;
    out.list = {
      sessions: total,
      seconds_to_create_them: round(listSeconds, 1),
      default_page: { ...page, service_list: summary(serviceMs.page), bytes: Buffer.byteLength(bodies.page) },
      limit_1000: { ...all, service_list: summary(serviceMs.all), bytes: Buffer.byteLength(bodies.all) },
    };
    figures.push(
      fig(
        `GET /sessions p99, ${total} sessions (default page of 100)`,
        page.api.p99,
        'ms',
        [page.bare.p99, 'bare Fastify GET, same body, p99'],
        '≤ 20 ms',
      ),
      fig(`GET /sessions p50, ${total} sessions (default page of 100)`, page.api.p50, 'ms', [
        page.bare.p50,
        'bare Fastify GET, same body, p50',
      ]),
      fig(
        `GET /sessions?limit=1000 p99, ${total} sessions`,
        all.api.p99,
        'ms',
        [all.bare.p99, 'bare Fastify GET, same body, p99'],
        '≤ 20 ms',
      ),
      fig(`GET /sessions?limit=1000 p50, ${total} sessions`, all.api.p50, 'ms', [
        all.bare.p50,
        'bare Fastify GET, same body, p50',
      ]),
    );

    out.ratios = {
      create_p50: round(create.p50 / rawCreateSummary.p50),
      message_p50: round(message.p50 / rawMessageSummary.p50),
      tick_p99_to_list_panes_p99: round(tick.p99 / listPanes.p99),
      list_page_p99: round(page.api.p99 / page.bare.p99),
      list_1000_p99: round(all.api.p99 / all.bare.p99),
    };
    out.targets = {
      create_p50_le_1_5x_floor: create.p50 <= 1.5 * rawCreateSummary.p50,
      message_p50_le_2x_floor: message.p50 <= 2 * rawMessageSummary.p50,
      tick_p99_le_50ms: tick.p99 <= 50,
      list_page_p99_le_20ms: page.api.p99 <= 20,
      list_1000_p99_le_20ms: all.api.p99 <= 20,
    };
    out.figures = figures;
  } finally {
    await cleanupAll();
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

await main();
