/**
 * `node dist/bench/configReload.js`: how fast an edit reaches a running city (issue 27), printed as ONE
 * JSON line on stdout (progress on stderr). An in-process supervisor (`runSupervisor`, temp GC_HOME, port
 * 0, file journal) runs a city made from upstream's gastown example (fixture; provider the mock agent, one
 * rig taking the pack) with its bead store, config, sessions (the in-memory fake runtime: no agent process
 * is measured) and agents services. Each round, alternately:
 *
 * - a city.toml edit: an `[[agent]]` appended (the next round of this kind removes it again);
 * - a pack edit: a new `agents/<name>/agent.toml` in packs/gastown (the next round removes it).
 *
 * Timed from the write until both the city's SSE stream (`/v0/city/{c}/events/stream?include=internal`:
 * the event is ours) delivered the
 * `config.changed` frame and `GET /v0/city/{c}/agents` shows the agent list changed (polled every 5 ms).
 * Floor, interleaved round by round: `fs.watch`'s own notice of a write of the same size to a file in the
 * same directory (the least any watcher-driven reload can take). Target: ≤ 1 s.
 *
 * Sizes: BENCH_QUICK=1 (fewer rounds) or BENCH_RELOAD_ROUNDS. Effects: temp dirs, loopback sockets.
 */
import { watch } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { agentServiceFactory } from '../actors/agents/startAgentService.ts';
import { beadStoreService } from '../actors/beads/index.ts';
import { linkedConfigService } from '../actors/supervisor/linkedConfigService.ts';
import { sessionServiceFactory } from '../actors/sessions/startSessionService.ts';
import { loadConfig } from '../actors/supervisor/supervisorConfig.ts';
import { runSupervisor } from '../http/main.ts';
import { openSse } from '../test/helpers/sse.ts';
import { fakeHost, waitForTerminal } from '../test/helpers/supervisor.ts';
import { round, summary, until } from './sessionsKit.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const rounds = Number(process.env.BENCH_RELOAD_ROUNDS ?? (quick ? 10 : 40));
const log = (message: string): void => void process.stderr.write(`bench configReload: ${message}\n`);
const CITY = 'gastown';
const here = dirname(fileURLToPath(import.meta.url));
/** The fixture, found from the sources (bench/) or the build (dist/bench/). */
async function fixtureDir(): Promise<string> {
  for (const base of [join(here, '..'), join(here, '..', '..')]) {
    const dir = join(base, 'test', 'fixtures', 'upstream', 'gascity', 'examples', 'gastown');
    try {
      await readFile(join(dir, 'city.toml'));
      return dir;
    } catch {
      // not here
    }
  }
  throw new Error(`gastown fixture not found from ${here}`);
}

async function main(): Promise<void> {
  const gastown = await fixtureDir();
  const root = await mkdtemp(join(tmpdir(), 'gc-bench-reload-'));
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  const config = { ...loadConfig({ GC_HOME: join(root, 'gchome') }), port: 0, bind: '127.0.0.1' };
  const running = await runSupervisor(config, {
    services: [
      beadStoreService,
      sessionServiceFactory({ runtime: 'fake' }),
      agentServiceFactory,
      linkedConfigService({ pollMs: 0 }),
    ],
    host: fakeHost(home, { bins: ['sh', 'node'] }),
    logger: pino({ name: 'gc-bench-reload', level: 'warn' }, pino.destination({ fd: 2, sync: true })),
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(running.url + path, {
      method,
      headers: {
        ...(method === 'GET' ? {} : { 'x-gc-request': '1' }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };
  try {
    const dir = join(home, CITY);
    const created = await call('POST', '/v0/city', { dir, provider: 'mock' });
    await waitForTerminal(running.supervisor.log.journal, String(created.body!.request_id), 30_000);
    for (const entry of ['packs']) await cp(join(gastown, entry), join(dir, entry), { recursive: true });
    const base =
      (await readFile(join(gastown, 'city.toml'), 'utf8')).replace(
        'provider = "claude"',
        'provider = "mock"',
      ) + '\n[[rigs]]\nname = "proj"\npath = "proj"\n\n[rigs.imports.gastown]\nsource = "packs/gastown"\n';
    await mkdir(join(dir, 'proj'), { recursive: true });
    await writeFile(join(dir, 'city.toml'), base);
    const names = async (): Promise<Set<string>> => {
      const res = await call('GET', `/v0/city/${CITY}/agents`);
      const items = (res.body?.items ?? []) as Array<{ name: string }>;
      return new Set(items.map((a) => a.name));
    };
    await until('gastown loaded', async () => (await names()).has('proj/gastown.polecat-1'), 30_000, 20);
    log('gastown is running');
    // config.changed is ours: the stream serves it with include=internal.
    const stream = await openSse(`${running.url}/v0/city/${CITY}/events/stream?include=internal`);

    const edits: number[] = [];
    const byKind: Record<'city' | 'pack', number[]> = { city: [], pack: [] };
    const floors: number[] = [];
    const scout = join(dir, 'packs', 'gastown', 'agents', 'scout');
    for (let i = 0; i < rounds; i++) {
      const kind = i % 2 === 0 ? 'city' : 'pack';
      const adding = Math.floor(i / 2) % 2 === 0;
      const name = kind === 'city' ? 'extra' : 'gastown.scout';
      const t0 = performance.now();
      if (kind === 'city')
        await writeFile(join(dir, 'city.toml'), adding ? `${base}\n[[agent]]\nname = "extra"\n` : base);
      else if (adding) {
        await mkdir(scout, { recursive: true });
        await writeFile(join(scout, 'agent.toml'), 'scope = "city"\n');
      } else await rm(scout, { recursive: true, force: true });
      let framed = false;
      const frame = (async () => {
        for (;;) {
          const f = await stream.nextEvent(10_000);
          if ((JSON.parse(f.data) as { type?: string }).type === 'config.changed') return (framed = true);
        }
      })();
      await until('agent list changed', async () => (await names()).has(name) === adding, 10_000, 5);
      await frame;
      edits.push(performance.now() - t0);
      byKind[kind].push(edits[edits.length - 1]!);
      if (!framed) throw new Error('no config.changed frame');

      const other = join(dir, 'packs', 'gastown', `watched-${i}.toml`);
      await writeFile(other, '');
      const seen = new Promise<number>((resolve) => {
        const w = watch(other, () => {
          w.close();
          resolve(performance.now());
        });
      });
      const f0 = performance.now();
      await writeFile(other, 'scope = "city"\n');
      floors.push((await seen) - f0);
      await rm(other, { force: true });
    }
    stream.close();
    const all = summary(edits);
    const floor = summary(floors);
    log(`edit → config.changed + agents p50 ${all.p50} ms (floor ${floor.p50} ms)`);
    const fig = (name: string, value: number, f: number) => ({
      name,
      value: round(value),
      unit: 'ms',
      floor: round(f),
      floor_name: 'fs.watch notice of a write',
      target: '≤ 1000 ms',
    });
    const figures = [
      fig('edit → config.changed on the stream + agent list changed p50', all.p50, floor.p50),
      fig('edit → config.changed on the stream + agent list changed p99', all.p99, floor.p99),
      fig('city.toml edit → reloaded p50', summary(byKind.city).p50, floor.p50),
      fig('pack edit → reloaded p50', summary(byKind.pack).p50, floor.p50),
    ];
    process.stdout.write(`${JSON.stringify({ scenario: 'configReload', rounds, figures })}\n`);
  } finally {
    await running.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
