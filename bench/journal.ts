/**
 * Journal benchmark: raw JetStream (the floor), the jetstream backend and the file backend, measured in
 * one run against a private nats-server, printed as ONE JSON line on stdout (progress goes to stderr).
 *
 * Run: `node dist/bench/journal.js` (after `npm run build`) or `npx tsx bench/journal.ts`.
 * Sizes: `--sequential N --pipelined N --latency N --window W --rate R --rounds K`, or `BENCH_QUICK=1`
 * for a run under ~30 s. Throughput rounds alternate between contenders and report the median, so drift
 * over the run does not favour whoever goes first. Effects: starts nats-server on a random port with a
 * temp store, writes logs under a temp dir, removes both at the end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FileJournalBackend } from '../actors/runtime/journal/fileJournal.ts';
import { JetStreamJournalBackend } from '../actors/runtime/journal/jetstreamJournal.ts';
import { findNatsServer, startNatsServer } from '../test/helpers/natsServer.ts';
import { journalContender, rawContender, type Contender, type Sizes } from './journalContenders.ts';
import { quantile, type LatencyFigures } from './journalKit.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const { values: args } = parseArgs({
  options: {
    sequential: { type: 'string', default: quick ? '1000' : '5000' },
    pipelined: { type: 'string', default: quick ? '10000' : '50000' },
    latency: { type: 'string', default: quick ? '2000' : '5000' },
    window: { type: 'string', default: '128' },
    rate: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
  },
});
const sizes: Sizes = {
  sequential: Number(args.sequential),
  pipelined: Number(args.pipelined),
  latency: Number(args.latency),
  window: Number(args.window),
  rate_per_s: Number(args.rate),
  rounds: Number(args.rounds),
  warmup: 200,
};
const progress = (m: string): void => void process.stderr.write(`bench journal: ${m}\n`);

interface Figures {
  sequential_per_s: number;
  pipelined_per_s: number;
  replay_per_s: number;
  latency: LatencyFigures;
  /** Every round's figure, in order, behind the medians above. */
  rounds: { sequential: number[]; pipelined: number[]; replay: number[] };
}
type Result = Figures | { error: string };
const ok = (r: Result | undefined): r is Figures => r !== undefined && !('error' in r);

/** Measures every contender; a contender that fails is reported with its error and dropped. */
async function measureAll(contenders: Contender[]): Promise<Record<string, Result>> {
  const errors = new Map<string, string>();
  const samples = new Map<string, { sequential: number[]; pipelined: number[]; replay: number[] }>();
  const latency = new Map<string, LatencyFigures>();
  const live = () => contenders.filter((c) => !errors.has(c.name));
  const step = async (c: Contender, what: string, fn: () => Promise<void>): Promise<void> => {
    if (errors.has(c.name)) return;
    progress(`${c.name} ${what}`);
    await fn().catch((err: unknown) => errors.set(c.name, String((err as Error)?.message ?? err)));
  };
  for (const c of contenders) {
    samples.set(c.name, { sequential: [], pipelined: [], replay: [] });
    await step(c, 'warm-up', () => c.warm());
  }
  for (const kind of ['sequential', 'pipelined', 'replay'] as const) {
    for (let r = 0; r < sizes.rounds; r++) {
      for (const c of live())
        await step(
          c,
          `${kind} ${r + 1}/${sizes.rounds}`,
          async () => void samples.get(c.name)![kind].push(await c[kind](r)),
        );
    }
  }
  for (const c of live()) await step(c, 'latency', async () => void latency.set(c.name, await c.latency()));
  const mid = (v: number[]) =>
    quantile(
      [...v].sort((a, b) => a - b),
      0.5,
    );
  const out: Record<string, Result> = {};
  for (const c of contenders) {
    const s = samples.get(c.name)!;
    const l = latency.get(c.name);
    const error = errors.get(c.name);
    out[c.name] =
      error !== undefined || !l
        ? { error: error ?? 'not measured' }
        : {
            sequential_per_s: mid(s.sequential),
            pipelined_per_s: mid(s.pipelined),
            replay_per_s: mid(s.replay),
            latency: l,
            rounds: s,
          };
  }
  return out;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-bench-journal-'));
  const server = findNatsServer() ? await startNatsServer() : undefined;
  const contenders: Contender[] = [];
  const missing: Record<string, Result> = {};
  try {
    if (server) {
      contenders.push(await rawContender(server.url, sizes));
      const js = new JetStreamJournalBackend({ servers: server.url, prefix: 'bench' });
      contenders.push(journalContender('jetstream', js, join(dir, 'js'), sizes));
    } else {
      missing.raw_jetstream = missing.jetstream = { error: 'nats-server not found on PATH' };
    }
    contenders.push(journalContender('file', new FileJournalBackend(), join(dir, 'file'), sizes));
    const results = { ...missing, ...(await measureAll(contenders)) };
    const serverVersion = contenders.find((c) => c.name === 'raw_jetstream')?.serverVersion;
    process.stdout.write(JSON.stringify(summarise(results, serverVersion)) + '\n');
  } finally {
    await Promise.all(contenders.map((c) => c.close().catch(() => undefined)));
    await server?.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

const ratio = (a: number, b: number): number => Math.round((a / b) * 1000) / 1000;

function fig(name: string, value: number, unit: string, floor?: [number, string], target?: string): object {
  return {
    name,
    value,
    unit,
    ...(floor ? { floor: floor[0], floor_name: floor[1] } : {}),
    ...(target ? { target } : {}),
  };
}

/** The printed object: figures per contender, ratios to raw JetStream, targets met, and report rows. */
function summarise(results: Record<string, Result>, serverVersion: string | undefined): object {
  const { raw_jetstream: raw, jetstream: js, file } = results;
  const figures: object[] = [];
  const targets: Record<string, boolean> = {};
  const ratios: Record<string, number> = {};
  if (ok(raw) && ok(js)) {
    ratios.jetstream_pipelined_vs_raw = ratio(js.pipelined_per_s, raw.pipelined_per_s);
    ratios.jetstream_sequential_vs_raw = ratio(js.sequential_per_s, raw.sequential_per_s);
    ratios.jetstream_replay_vs_raw = ratio(js.replay_per_s, raw.replay_per_s);
    targets.jetstream_pipelined_ge_70pct_of_raw = ratios.jetstream_pipelined_vs_raw >= 0.7;
  }
  for (const [name, r] of [
    ['jetstream', js],
    ['file', file],
  ] as const) {
    if (!ok(r)) continue;
    targets[`${name}_latency_p50_le_1ms`] = r.latency.p50_ms <= 1;
    targets[`${name}_latency_p99_le_10ms`] = r.latency.p99_ms <= 10;
    const floor = (v: number, what: string): [number, string] | undefined =>
      ok(raw) && name === 'jetstream' ? [v, what] : undefined;
    const pipelinedTarget = name === 'jetstream' ? '≥ 0.7 × floor' : '≥ 50000/s';
    figures.push(
      fig(
        `${name} append, pipelined`,
        r.pipelined_per_s,
        '/s',
        floor(ok(raw) ? raw.pipelined_per_s : 0, 'raw js.publish, same window'),
        pipelinedTarget,
      ),
      fig(
        `${name} append, sequential`,
        r.sequential_per_s,
        '/s',
        floor(ok(raw) ? raw.sequential_per_s : 0, 'raw js.publish, sequential'),
      ),
      fig(
        `${name} subscription replay`,
        r.replay_per_s,
        '/s',
        floor(ok(raw) ? raw.replay_per_s : 0, 'raw ordered consumer'),
      ),
      fig(
        `${name} append→subscriber p50`,
        r.latency.p50_ms,
        'ms',
        floor(ok(raw) ? raw.latency.p50_ms : 0, 'raw publish→consumer p50'),
        '≤ 1 ms',
      ),
      fig(
        `${name} append→subscriber p99`,
        r.latency.p99_ms,
        'ms',
        floor(ok(raw) ? raw.latency.p99_ms : 0, 'raw publish→consumer p99'),
        '≤ 10 ms',
      ),
    );
  }
  if (ok(file)) targets.file_pipelined_ge_50k_per_s = file.pipelined_per_s >= 50_000;
  return {
    scenario: 'journal',
    mode: quick ? 'quick' : 'full',
    nats_server: serverVersion ?? null,
    // The file backend's default: appends are handed to the kernel, not fdatasync'd.
    file_fsync: 'never',
    sizes,
    raw_jetstream: raw,
    jetstream: js,
    file,
    ratios,
    targets,
    figures,
  };
}

await main();
