/**
 * The acp bench's scale figures (issue 29): SESSIONS concurrent ACP sessions in a city of a real supervisor
 * (`runSupervisor`, in this process, file journal, port 0), whose city.toml says `[session] provider = "acp"`
 * and runs the mock ACP agent. The sessions are created through the API (`POST /sessions`) and each answers
 * one prompt (`POST /session/{id}/messages`) before anything is measured.
 *
 * - RSS per session: the supervisor is this process, so its RSS (`process.memoryUsage().rss`, the kernel's
 *   resident set of the process: heap, code, buffers, the child pipes' user-space side) is read after a forced
 *   full GC, as the median of 5 readings 100 ms apart: once with the city up, a warm-up batch of sessions
 *   created, prompted and closed (the code paths loaded, the heap grown once) and no session open, and again
 *   with SESSIONS open and answered. The delta over SESSIONS is the figure. The agents are child processes
 *   and do not count.
 * - reconciler tick p99: `reconciler.tick()` of the city's session service (kept by wrapping the service
 *   factory), TICKS passes with the sessions idle and TICKS passes while every session answers a prompt
 *   (a round of SESSIONS prompts sent before each pass); the floor is the runtime's own batched `observe()`
 *   timed right after each pass. On a loaded machine the wall time of a pass includes the time the process
 *   waits for a core, so the process's CPU time during each `tick()` call (`process.cpuUsage`, every thread:
 *   GC and, while sessions answer, the handling of their updates that lands in the call) is reported too.
 */
import { appendFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { loadConfig } from '../actors/supervisor/supervisorConfig.ts';
import type { CityServiceFactory } from '../actors/runtime/cityServices.ts';
import { beadStoreService } from '../actors/beads/index.ts';
import type { SessionService } from '../actors/sessions/sessionService.ts';
import { sessionServiceFactory } from '../actors/sessions/startSessionService.ts';
import { runSupervisor, type RunningSupervisor } from '../http/main.ts';
import { fakeHost, waitForTerminal } from '../test/helpers/supervisor.ts';
import { httpClient, summary, until } from './sessionsKit.ts';

setFlagsFromString('--expose-gc');
const forceGc = runInNewContext('gc') as () => void;

const log = (m: string): void => void process.stderr.write(`bench acp: ${m}\n`);

interface Accepted {
  request_id: string;
}

async function supervisor(
  root: string,
  logDir: string,
): Promise<{ running: RunningSupervisor; cities: Map<string, SessionService> }> {
  const cities = new Map<string, SessionService>();
  const factory = sessionServiceFactory({
    env: { GC_MOCK_LOG_DIR: logDir },
    thresholds: { maxWakesPerTick: 25 },
  });
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
    host: fakeHost(join(root, 'home'), { bins: ['sh', 'node'] }),
    logger: pino({ name: 'gc-bench-acp', level: 'warn' }, pino.destination({ fd: 2, sync: true })),
  });
  return { running, cities };
}

/** Median RSS (bytes) of 5 readings after a full GC each. */
async function rss(): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) {
    forceGc();
    xs.push(process.memoryUsage().rss);
    await new Promise((r) => setTimeout(r, 100));
  }
  return xs.sort((a, b) => a - b)[2]!;
}

export interface ScaleFigures {
  sessions: number;
  rssPerSessionMb: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  idleTick: ReturnType<typeof summary>;
  idleObserve: ReturnType<typeof summary>;
  busyTick: ReturnType<typeof summary>;
  busyObserve: ReturnType<typeof summary>;
  /** This process's CPU time (user + system, all its threads) during each `tick()` call. */
  idleCpu: ReturnType<typeof summary>;
  busyCpu: ReturnType<typeof summary>;
}

export async function acpScale(root: string, sessions: number, ticks: number): Promise<ScaleFigures> {
  const home = join(root, 'home');
  const logDir = join(root, 'agent-logs');
  await mkdir(home, { recursive: true });
  const CITY = 'acp-scale';
  const base = `/v0/city/${CITY}`;

  // The city is created by one supervisor, made an ACP city in its city.toml, and run by the next.
  const first = await supervisor(join(root, 'first'), logDir);
  {
    const http = httpClient(first.running.url);
    const made = await http.json<Accepted>('POST', '/v0/city', 202, {
      dir: join(home, CITY),
      provider: 'mock',
    });
    const done = await waitForTerminal(first.running.supervisor.log.journal, made.request_id, 60_000);
    http.close();
    if (done.type !== 'request.result.city.create')
      throw new Error(`city not created: ${JSON.stringify(done)}`);
    await first.running.close();
  }
  appendFileSync(join(home, CITY, 'city.toml'), '\n[session]\nprovider = "acp"\n');

  const sup = await supervisor(join(root, 'first'), logDir);
  const http = httpClient(sup.running.url, 8);
  try {
    await until(
      'the ACP city',
      async () => (await http.send('GET', `${base}/sessions`)).status === 200,
      60_000,
      50,
    );
    const service = sup.cities.get(CITY);
    if (!service) throw new Error('the city started no session service');

    const active = async (want: number) =>
      until(
        `${want} active sessions`,
        async () =>
          (await http.json<{ total: number }>('GET', `${base}/sessions?state=active&limit=1`, 200)).total >=
          want,
        180_000,
        100,
      );
    const answered = async (ids: string[], text: string) => {
      for (const id of ids) await http.json('POST', `${base}/session/${id}/messages`, 202, { message: text });
      await until(
        `${ids.length} answers to ${text}`,
        async () => {
          const peeks = await Promise.all(
            ids.map(async (id) =>
              (await service.runtime.peek(service.book.resolve(id).sessionName, 0)).includes(`echo: ${text}`),
            ),
          );
          return peeks.every(Boolean);
        },
        120_000,
        50,
      );
    };
    const create = async (n: number, prefix: string): Promise<string[]> => {
      const ids: string[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < n) {
            const alias = `${prefix}${next++}`;
            await http.json('POST', `${base}/sessions`, 202, { alias });
            ids.push(alias);
          }
        }),
      );
      return ids;
    };

    // Warm-up: code paths loaded, buffers grown once; then nothing open.
    const warm = await create(10, 'warm');
    await active(10);
    await answered(warm, 'warm');
    for (const id of warm) {
      const closed = await http.send('POST', `${base}/session/${id}/close`);
      if (closed.status >= 300) throw new Error(`close ${id}: ${closed.status} ${closed.body}`);
    }
    await until(
      'warm-up closed',
      async () => [...(await service.runtime.observe()).values()].every((o) => !o.running),
      30_000,
      50,
    );
    const before = await rss();
    log(`RSS with no session: ${(before / 2 ** 20).toFixed(1)} MB`);

    const started = performance.now();
    const ids = await create(sessions, 's');
    await active(sessions);
    await answered(ids, 'hello');
    log(
      `${sessions} ACP sessions active and answered in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const after = await rss();
    log(`RSS with ${sessions}: ${(after / 2 ** 20).toFixed(1)} MB`);

    const reconciler = service.reconciler;
    const pass = async (tickMs: number[], observeMs: number[], cpuMs: number[]) => {
      const before = reconciler.tickMs.length;
      const cpu = process.cpuUsage();
      await reconciler.tick();
      const used = process.cpuUsage(cpu);
      cpuMs.push((used.user + used.system) / 1000);
      if (reconciler.tickMs.length !== before) tickMs.push(reconciler.tickMs.at(-1)!);
      const t0 = performance.now();
      const seen = await service.runtime.observe();
      observeMs.push(performance.now() - t0);
      if ([...seen.values()].filter((o) => o.running).length < sessions)
        throw new Error('sessions died during the bench');
    };
    const idleTick: number[] = [];
    const idleObserve: number[] = [];
    const idleCpu: number[] = [];
    for (let i = 0; i < ticks + 10; i++)
      if (i < 10) await pass([], [], []);
      else await pass(idleTick, idleObserve, idleCpu);
    const busyTick: number[] = [];
    const busyObserve: number[] = [];
    const busyCpu: number[] = [];
    const names = ids.map((id) => service.book.resolve(id).sessionName);
    for (let i = 0; i < ticks; i++) {
      // A prompt to every session, the pass while their updates arrive.
      await Promise.all(names.map((n) => service.runtime.nudge(n, `tick ${i}`)));
      await pass(busyTick, busyObserve, busyCpu);
    }
    return {
      sessions,
      rssPerSessionMb: (after - before) / sessions / 2 ** 20,
      rssBeforeMb: before / 2 ** 20,
      rssAfterMb: after / 2 ** 20,
      idleTick: summary(idleTick),
      idleObserve: summary(idleObserve),
      busyTick: summary(busyTick),
      busyObserve: summary(busyObserve),
      idleCpu: summary(idleCpu),
      busyCpu: summary(busyCpu),
    };
  } finally {
    http.close();
    await sup.running.close();
    await rm(root, { recursive: true, force: true });
  }
}
