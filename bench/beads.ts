/**
 * `node dist/bench/beads.js`: the bead store's figures, printed as ONE JSON line on stdout (progress on
 * stderr). Three scenarios:
 *
 * 1. create throughput: `POST /v0/city/{c}/beads` over a real loopback socket with a window of requests
 *    in flight, on the file journal and on JetStream (a private nats-server); the floor is a bare Fastify
 *    POST route answering 201 with the same client and window, measured in the same run.
 * 2. list latency: `GET /v0/city/{c}/beads` one request at a time in a city of 100k beads, for
 *    filtered pages; the floor is a bare Fastify GET answering a pre-serialised page of the same size.
 * 3. start-up: open the file journal of a city holding 1M bead events and fold it into a store; the
 *    floor is one pass that only reads and JSON-parses every line. The open alone (the journal's scan of
 *    its log) has its own figure, its floor one pass that only reads the file.
 *
 * Sizes: BENCH_QUICK=1 (a run under ~30 s) or BENCH_BEADS_CREATES, BENCH_BEADS_LIST, BENCH_BEADS_FOLD,
 * BENCH_BEADS_WINDOW. BENCH_BEADS_ONLY=create,list,fold runs only the scenarios named (default: all).
 * Effects: temp dirs, a nats-server child process, loopback sockets.
 */
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import Fastify from 'fastify';
import { BEAD_SERVICE, startBeadService, type BeadService } from '../actors/beads/index.ts';
import { FileJournalBackend } from '../actors/runtime/journal/fileJournal.ts';
import { JetStreamJournalBackend } from '../actors/runtime/journal/jetstreamJournal.ts';
import type { JournalBackend } from '../actors/runtime/journal/journal.ts';
import { SUPERVISOR_LOG } from '../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../actors/runtime/journal/memoryJournal.ts';
import { LiveCities } from '../actors/supervisor/liveCities.ts';
import { idPrefixFor } from '../machines/beads/ids.ts';
import type { App } from '../http/app.ts';
import { findNatsServer, startNatsServer } from '../test/helpers/natsServer.ts';
import { memoryApp } from '../test/helpers/app.ts';
import { quantile, throughput } from './journalKit.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const size = (name: string, full: number, small: number): number =>
  Number(process.env[name] ?? (quick ? small : full));
const sizes = {
  creates: size('BENCH_BEADS_CREATES', 20_000, 3_000),
  window: size('BENCH_BEADS_WINDOW', 32, 32),
  list_beads: size('BENCH_BEADS_LIST', 100_000, 100_000),
  list_requests: quick ? 200 : 1000,
  fold_events: size('BENCH_BEADS_FOLD', 1_000_000, 100_000),
};
const only = new Set((process.env.BENCH_BEADS_ONLY ?? 'create,list,fold').split(','));
const log = (message: string): void => void process.stderr.write(`bench beads: ${message}\n`);
const round = (v: number, digits = 3): number => Math.round(v * 10 ** digits) / 10 ** digits;

/** A keep-alive HTTP/1.1 client with at most `window` sockets. */
function client(base: string, window: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: window });
  const url = new URL(base);
  const send = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers: body
            ? {
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(body),
                'x-gc-request': '1',
              }
            : {},
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}

const ROUNDS = 3;

/** Creates per second through `path` with `sizes.window` in flight, after a short warm-up. */
async function createRate(base: string, path: string, n: number): Promise<number> {
  const http = client(base, sizes.window);
  try {
    const body = (i: number) => JSON.stringify({ title: `bead ${i}`, labels: ['bench'], priority: i % 4 });
    const post = async (i: number) => {
      const res = await http.send('POST', path, body(i));
      if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${res.body}`);
    };
    await throughput(Math.min(300, n), sizes.window, post);
    return await throughput(n, sizes.window, post);
  } finally {
    http.close();
  }
}

/** A bare Fastify app: the floor of both HTTP figures. */
async function bareApp(page: string): Promise<{ base: string; close: () => Promise<void> }> {
  const app = Fastify({ logger: false });
  let n = 0;
  app.post('/beads', async (req, reply) => reply.code(201).send({ id: `b-${++n}`, ...(req.body as object) }));
  app.get('/beads', async (_req, reply) => reply.type('application/json').send(page));
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { base, close: () => app.close() };
}

interface City {
  app: App;
  base: string;
  path: string;
  beads: BeadService;
  close(): Promise<void>;
}

/** A city named `name` on `backend`, its log at `file`, served by a listening app. */
async function city(name: string, backend: JournalBackend, file: string): Promise<City> {
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  // The test helper builds the app with the rest of its dependencies detached (no supervisor actors).
  const { app } = await memoryApp({ cities });
  const journal = await backend.open({ name, file });
  const beads = await startBeadService({ name, path: '', journal });
  cities.set({ name, path: '', journal, running: true, services: { [BEAD_SERVICE]: beads.service } });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    base,
    path: `/v0/city/${name}`,
    beads,
    close: async () => {
      await app.close();
      await beads.stop();
      await backend.close();
    },
  };
}

const LABELS = 20;
const AGENTS = 50;
const TYPES = ['task', 'bug', 'feature', 'chore', 'epic'];

/**
 * Writes the log of city `city` with `n` events straight to JSONL: creates first, the rest updates of random
 * beads. Ids carry the city's own prefix, as a city's own beads do.
 */
async function writeLog(file: string, city: string, n: number, creates: number): Promise<void> {
  const prefix = idPrefixFor(city);
  await mkdir(join(file, '..'), { recursive: true });
  const out = createWriteStream(file);
  const ts = '2030-01-01T00:00:00.000Z';
  let chunk = '';
  for (let seq = 1; seq <= n; seq++) {
    const i = seq <= creates ? seq : 1 + ((seq * 2654435761) % creates);
    const bead = {
      id: `${prefix}-${i}`,
      title: `bead ${i}${seq > creates ? ` v${seq}` : ''}`,
      status: i % 4 === 0 ? 'closed' : i % 7 === 0 ? 'in_progress' : 'open',
      issue_type: TYPES[i % TYPES.length],
      created_at: ts,
      updated_at: ts,
      assignee: `agent-${i % AGENTS}`,
      priority: i % 4,
      labels: [`l${i % LABELS}`, `l${(i * 7) % LABELS}`],
    };
    const type = seq <= creates ? 'bead.created' : bead.status === 'closed' ? 'bead.closed' : 'bead.updated';
    chunk += `${JSON.stringify({ seq, type, ts, actor: 'bench', subject: bead.id, payload: { bead } })}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      chunk = '';
    }
  }
  out.end(chunk);
  await new Promise<void>((r) => out.once('finish', () => r()));
}

/** Sequential GET latency of `path` (p50/p99 in ms) over `requests` requests after a warm-up. */
async function latency(
  base: string,
  path: string,
  requests: number,
): Promise<{ p50_ms: number; p99_ms: number }> {
  const http = client(base, 1);
  try {
    const times: number[] = [];
    for (let i = 0; i < requests + 20; i++) {
      const started = performance.now();
      const res = await http.send('GET', path);
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
      if (i >= 20) times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { p50_ms: round(quantile(times, 0.5)), p99_ms: round(quantile(times, 0.99)) };
  } finally {
    http.close();
  }
}

/** CPU milliseconds (user + system) of this process since `since` (a `process.cpuUsage()`). */
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(since);
  return Math.round((user + system) / 1000);
};

/** Milliseconds to read and JSON-parse every line of `file`: what any fold must at least pay. */
async function parseOnly(file: string): Promise<{ ms: number; cpu_ms: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let lines = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (JSON.parse(line)) lines++;
  }
  if (lines === 0) throw new Error('empty log');
  return { ms: performance.now() - started, cpu_ms: cpuMs(cpu) };
}

/** Milliseconds to read every byte of `file` in 1 MiB reads: what any open-time scan must at least pay. */
async function readOnly(file: string): Promise<number> {
  const started = performance.now();
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    let position = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
    }
    if (position === 0) throw new Error('empty log');
  } finally {
    await handle.close();
  }
  return performance.now() - started;
}

function fig(name: string, value: number, unit: string, floor?: [number, string], target?: string): object {
  return {
    name,
    value,
    unit,
    ...(floor ? { floor: floor[0], floor_name: floor[1] } : {}),
    ...(target ? { target } : {}),
  };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-bench-beads-'));
  const nats = only.has('create') && findNatsServer() ? await startNatsServer() : undefined;
  const figures: object[] = [];
  const out: Record<string, unknown> = {
    scenario: 'beads',
    mode: quick ? 'quick' : 'full',
    sizes,
    file_fsync: 'never',
  };
  try {
    const targets: Record<string, boolean | null> = {};
    if (only.has('create')) {
      // 1. Create throughput: the three servers run side by side and are measured in turns, each round in
      // another order, and each figure is the median round, so the machine's load favours none of them.
      const contenders: Array<{ name: string; base: string; path: string; close(): Promise<void> }> = [];
      const bare = await bareApp('{}');
      contenders.push({ name: 'bare', base: bare.base, path: '/beads', close: bare.close });
      const fileCity = await city(
        'bench-file',
        new FileJournalBackend(),
        join(dir, 'file', '.gc', 'events.jsonl'),
      );
      contenders.push({
        name: 'file',
        base: fileCity.base,
        path: `${fileCity.path}/beads`,
        close: fileCity.close,
      });
      if (nats) {
        const jsCity = await city(
          'bench-js',
          new JetStreamJournalBackend({ servers: nats.url, prefix: 'benchbeads' }),
          join(dir, 'js', '.gc', 'events.jsonl'),
        );
        contenders.push({
          name: 'jetstream',
          base: jsCity.base,
          path: `${jsCity.path}/beads`,
          close: jsCity.close,
        });
      }
      const rates = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
      for (let r = 0; r < ROUNDS; r++) {
        for (let k = 0; k < contenders.length; k++) {
          const c = contenders[(r + k) % contenders.length]!;
          log(`create: ${c.name}, round ${r + 1}/${ROUNDS}`);
          rates.get(c.name)!.push(await createRate(c.base, c.path, Math.ceil(sizes.creates / ROUNDS)));
        }
      }
      for (const c of contenders) await c.close();
      const median = (name: string): number | undefined => {
        const values = [...(rates.get(name) ?? [])].sort((a, b) => a - b);
        return values.length ? quantile(values, 0.5) : undefined;
      };
      const floorRate = median('bare')!;
      const fileRate = median('file')!;
      const jsRate = median('jetstream');
      out.create = {
        file_per_s: fileRate,
        jetstream_per_s: jsRate ?? null,
        bare_fastify_per_s: floorRate,
        rounds: Object.fromEntries(rates),
      };
      figures.push(
        fig(
          'create over HTTP, file journal',
          fileRate,
          'req/s',
          [floorRate, 'bare Fastify POST'],
          '≥ 2000 req/s',
        ),
      );
      if (jsRate !== undefined) {
        figures.push(
          fig(
            'create over HTTP, JetStream',
            jsRate,
            'req/s',
            [floorRate, 'bare Fastify POST'],
            '≥ 1500 req/s',
          ),
        );
      }

      targets.create_file_ge_2000 = fileRate >= 2000;
      targets.create_jetstream_ge_1500 = jsRate === undefined ? null : jsRate >= 1500;
    }
    if (only.has('list')) {
      // 2. List latency in a city of list_beads beads.
      log(`list: writing ${sizes.list_beads} beads`);
      const listFile = join(dir, 'list', '.gc', 'events.jsonl');
      await writeLog(listFile, 'bench-list', sizes.list_beads, sizes.list_beads);
      const listCity = await city('bench-list', new FileJournalBackend(), listFile);
      const queries: Record<string, string> = {
        label: '?label=l7',
        assignee_status: '?assignee=agent-13&status=open',
        type_label: '?type=bug&label=l3',
        unfiltered: '',
        page_1000: '?limit=1000',
      };
      const list: Record<string, unknown> = {};
      for (const [name, query] of Object.entries(queries)) {
        log(`list: ${name}`);
        list[name] = await latency(listCity.base, `${listCity.path}/beads${query}`, sizes.list_requests);
      }
      const page = (await client(listCity.base, 1).send('GET', `${listCity.path}/beads?label=l7`)).body;
      await listCity.close();
      const bareList = await bareApp(page);
      const floorList = await latency(bareList.base, '/beads', sizes.list_requests);
      await bareList.close();
      out.list = { ...list, bare_fastify_same_page: floorList };
      const filtered = list.label as { p50_ms: number; p99_ms: number };
      figures.push(
        fig(
          `GET /beads?label=… p99, ${sizes.list_beads} beads`,
          filtered.p99_ms,
          'ms',
          [floorList.p99_ms, 'bare Fastify GET, same page'],
          '≤ 20 ms',
        ),
        fig(`GET /beads?label=… p50, ${sizes.list_beads} beads`, filtered.p50_ms, 'ms', [
          floorList.p50_ms,
          'bare Fastify GET, same page',
        ]),
      );

      targets.list_filtered_p99_le_20ms = filtered.p99_ms <= 20;
    }
    if (only.has('fold')) {
      // 3. Start-up: open + fold a log of fold_events events.
      log(`fold: writing ${sizes.fold_events} events`);
      const foldFile = join(dir, 'fold', '.gc', 'events.jsonl');
      await writeLog(foldFile, 'bench-fold', sizes.fold_events, Math.ceil(sizes.fold_events / 5));
      const parse = await parseOnly(foldFile);
      const parseMs = parse.ms;
      const readMs = await readOnly(foldFile);
      // Cold: no snapshot yet, the whole log is folded (and a snapshot written at stop). Warm: a second start
      // (the journal opened afresh) restores that snapshot and folds what follows it (nothing here).
      const snapshotFile = join(dir, 'fold', '.gc', 'beads.snapshot.jsonl');
      const startCity = async () => {
        const cpu = process.cpuUsage();
        const started = performance.now();
        const backend = new FileJournalBackend();
        const journal = await backend.open({ name: 'bench-fold', file: foldFile });
        const opened = performance.now();
        const store = await startBeadService(
          { name: 'bench-fold', path: '', journal },
          { snapshot: { file: snapshotFile, min: 1, every: Number.MAX_SAFE_INTEGER } },
        );
        const folded = performance.now();
        const foldedCpu = cpuMs(cpu);
        const beads = store.service.model.beads.size;
        const replayed = store.service.startup.replayed;
        await store.stop();
        const stopped = performance.now();
        await backend.close();
        return {
          open_ms: Math.round(opened - started),
          fold_ms: Math.round(folded - opened),
          total_ms: Math.round(folded - started),
          total_cpu_ms: foldedCpu,
          stop_ms: Math.round(stopped - folded),
          beads,
          replayed,
        };
      };
      log('fold: cold start');
      const cold = await startCity();
      log('fold: warm start');
      const warm = await startCity();
      const total = cold.total_ms;
      out.fold = {
        events: sizes.fold_events,
        cold: { ...cold, events_per_s: Math.round(sizes.fold_events / (cold.total_ms / 1000)) },
        warm_from_snapshot: warm,
        parse_only_ms: Math.round(parseMs),
        parse_only_cpu_ms: parse.cpu_ms,
        ratio_to_floor: round(cold.total_ms / parseMs, 2),
        cpu_ratio_to_floor: round(cold.total_cpu_ms / parse.cpu_ms, 2),
        read_only_ms: Math.round(readMs),
        heap_used_mb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
      };
      figures.push(
        fig(
          `start-up of a city with ${sizes.fold_events} bead events, no snapshot`,
          round(cold.total_ms / 1000),
          's',
          [round(parseMs / 1000), 'read + JSON.parse every line'],
          '≤ 5 s for 1M',
        ),
        fig(
          `start-up of a city with ${sizes.fold_events} bead events, no snapshot, CPU time`,
          round(cold.total_cpu_ms / 1000),
          's',
          [round(parse.cpu_ms / 1000), 'read + JSON.parse every line, CPU time'],
          '≤ 1.2 × floor',
        ),
        fig(`start-up of the same city from its snapshot`, round(warm.total_ms / 1000), 's', [
          round(parseMs / 1000),
          'read + JSON.parse every line',
        ]),
        fig(`open of that city's file journal (the scan of its log)`, round(cold.open_ms / 1000), 's', [
          round(readMs / 1000),
          'read every byte of the log',
        ]),
      );
      targets.fold_le_5s = sizes.fold_events >= 1_000_000 ? total <= 5000 : null;
      targets.fold_from_snapshot_le_5s = sizes.fold_events >= 1_000_000 ? warm.total_ms <= 5000 : null;
    }
    out.targets = targets;
    out.figures = figures;
    process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    await nats?.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
