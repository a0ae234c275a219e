/**
 * City-create benchmark: `POST /v0/city` → its terminal event on the supervisor log, over real HTTP
 * against an in-process supervisor (file journal, default reconciler tick), with a bare Fastify POST route
 * measured by the same client in the same run as the floor. Prints ONE JSON line on stdout.
 *
 * Run: `node dist/bench/create.js` (after `npm run build`) or `npx tsx bench/create.ts`.
 * `--creates N` (default 50; `BENCH_QUICK=1`: 20). Effects: a temp $GC_HOME and city dirs, removed at the end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { loadConfig } from '../actors/supervisor/supervisorConfig.ts';
import type { JournalEvent } from '../actors/runtime/journal/journal.ts';
import { runSupervisor } from '../http/main.ts';

const { values: args } = parseArgs({
  options: { creates: { type: 'string', default: process.env.BENCH_QUICK ? '20' : '50' } },
});
const creates = Number(args.creates);
const WARMUP = 5;

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
};
const round = (ms: number): number => Math.round(ms * 1000) / 1000;
const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'x-gc-request': '1', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The floor: the same client against a Fastify POST route that does nothing. */
async function bareFastify(n: number): Promise<number[]> {
  const app = Fastify({ logger: false });
  app.post('/v0/city', async (_req, reply) =>
    reply.code(202).send({ request_id: 'req-0', event_cursor: '0' }),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v0/city`;
  const out: number[] = [];
  for (let i = 0; i < n + WARMUP; i++) {
    const t0 = performance.now();
    await (await post(url, { dir: `/x/${i}` })).json();
    if (i >= WARMUP) out.push(performance.now() - t0);
  }
  await app.close();
  return out;
}

const root = await mkdtemp(join(tmpdir(), 'gc-bench-create-'));
const config = { ...loadConfig({ GC_HOME: join(root, 'gchome') }), port: 0, bind: '127.0.0.1' };
const running = await runSupervisor(config);
const log = running.supervisor.log.journal;

// One subscription sees every terminal; each create waits for its own.
const waiting = new Map<string, (at: number) => void>();
const early = new Map<string, number>();
const sub = log.subscribe(await log.head());
void (async () => {
  for await (const e of sub as AsyncIterable<JournalEvent>) {
    if (e.type !== 'request.failed' && !e.type.startsWith('request.result.')) continue;
    const id = (e.payload as { request_id: string }).request_id;
    const at = performance.now();
    const done = waiting.get(id);
    if (done) done(at);
    else early.set(id, at);
  }
})();

const endToEnd: number[] = [];
const accepted: number[] = [];
let failed = 0;
for (let i = 0; i < creates + WARMUP; i++) {
  const t0 = performance.now();
  const res = await post(`${running.url}/v0/city`, { dir: join(root, `city-${i}`), start_command: 'true' });
  const body = (await res.json()) as { request_id: string };
  const t202 = performance.now();
  if (res.status !== 202) throw new Error(`create answered ${res.status}: ${JSON.stringify(body)}`);
  const doneAt =
    early.get(body.request_id) ?? (await new Promise<number>((r) => waiting.set(body.request_id, r)));
  if (i >= WARMUP) {
    endToEnd.push(doneAt - t0);
    accepted.push(t202 - t0);
  }
}
for (const e of await log.list({ type: 'request.failed' })) if (e.type === 'request.failed') failed++;

const floor = await bareFastify(creates);
await sub.close();
await running.close();
await rm(root, { recursive: true, force: true });

const floorP50 = quantile(floor, 0.5);
const floorP99 = quantile(floor, 0.99);
const figures = [
  {
    name: 'create → terminal event p50',
    value: round(quantile(endToEnd, 0.5)),
    unit: 'ms',
    floor: round(floorP50),
    floor_name: 'bare Fastify POST p50',
    target: '< 1000 ms',
  },
  {
    name: 'create → terminal event p99',
    value: round(quantile(endToEnd, 0.99)),
    unit: 'ms',
    floor: round(floorP99),
    floor_name: 'bare Fastify POST p99',
    target: '< 1000 ms',
  },
  {
    name: 'create → 202 p50',
    value: round(quantile(accepted, 0.5)),
    unit: 'ms',
    floor: round(floorP50),
    floor_name: 'bare Fastify POST p50',
  },
  {
    name: 'create → 202 p99',
    value: round(quantile(accepted, 0.99)),
    unit: 'ms',
    floor: round(floorP99),
    floor_name: 'bare Fastify POST p99',
  },
];
process.stdout.write(
  JSON.stringify({
    scenario: 'create',
    creates,
    tick_ms: config.tickMs,
    journal: 'file',
    failed,
    ratio_p50: round(quantile(endToEnd, 0.5) / floorP50),
    ratio_p99: round(quantile(endToEnd, 0.99) / floorP99),
    figures,
  }) + '\n',
);
