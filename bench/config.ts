/**
 * `node dist/bench/config.js`: the configuration surface's figures, printed as ONE JSON line on stdout
 * (progress on stderr). One city on the file journal with a city.toml of 40 agents, 10 rigs and 10
 * providers, its config service in process:
 *
 * 1. write: p50 / p99 of one edit through the one config writer (`updateRig`: read, compose and validate
 *    before and after, write-rename, the `config.changed` event, the previous file dropped); floor the I/O
 *    any durable config change needs, measured in the same run: the same bytes written atomically
 *    (temp file, fsync, rename, directory fsync) and one event appended through the log runtime.
 * 2. parallel: writes per second of 64 edits sent at once (serialised by the writer); floor the sequential
 *    floor's rate.
 * 3. hand edit: p50 from a hand write of city.toml to its `config.changed` in the log (the file watch);
 *    floor the file watch's own notice of the same write.
 * 4. read: p50 of GET /config's answer (`service.config()`: a hash of the file, then the cached view);
 *    floor reading and parsing city.toml.
 *
 * Sizes: BENCH_QUICK=1 (fewer rounds) or BENCH_CONFIG_ROUNDS. Effects: a temp dir (removed at the end).
 */
import { watch } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse } from 'smol-toml';
import { writeFileAtomic } from '../actors/runtime/atomicFile.ts';
import { ConfigService } from '../actors/config/configService.ts';
import { FileJournalBackend } from '../actors/runtime/journal/fileJournal.ts';
import { defaultLogger } from '../actors/runtime/logger.ts';
import { LogRuntime } from '../actors/runtime/logRuntime/logRuntime.ts';
import { recordOf } from '../machines/recorded.ts';
import { quantile } from './journalKit.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const rounds = Number(process.env.BENCH_CONFIG_ROUNDS ?? (quick ? 40 : 200));
const log = (message: string): void => void process.stderr.write(`bench config: ${message}\n`);
const round = (v: number, digits = 3): number => Math.round(v * 10 ** digits) / 10 ** digits;
const q = (xs: number[], p: number) =>
  round(
    quantile(
      [...xs].sort((a, b) => a - b),
      p,
    ),
  );
const fig = (
  name: string,
  value: number,
  unit: string,
  floor: number,
  floorName: string,
  target?: string,
) => ({
  name,
  value,
  unit,
  floor,
  floor_name: floorName,
  ...(target ? { target } : {}),
});

function cityToml(): string {
  const parts = ['[workspace]\nname = "bench"\nprovider = "mock"\n'];
  for (let i = 0; i < 10; i++) parts.push(`[providers.p${i}]\ncommand = "echo"\nargs = ["${i}"]\n`);
  for (let i = 0; i < 10; i++) parts.push(`[[rigs]]\nname = "r${i}"\npath = "r${i}"\nprefix = "x${i}"\n`);
  for (let i = 0; i < 40; i++)
    parts.push(
      `[[agent]]\nname = "a${i}"\ndir = "r${i % 10}"\nprovider = "p${i % 10}"\nmax_active_sessions = 2\n`,
    );
  return parts.join('\n');
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-bench-config-'));
  const backend = new FileJournalBackend();
  const journal = await backend.open({ name: 'bench', file: join(dir, '.gc', 'events.jsonl') });
  const runtime = new LogRuntime(journal, 0);
  await writeFile(join(dir, 'city.toml'), cityToml());
  const service = new ConfigService({
    city: 'bench',
    path: dir,
    log: runtime,
    logger: defaultLogger(),
    pollMs: 0,
  });
  await service.start();
  try {
    // 1. one write, alternating with its floor.
    const writes: number[] = [];
    const floors: number[] = [];
    const floorFile = join(dir, 'floor.toml');
    for (let i = 0; i < rounds; i++) {
      let t0 = performance.now();
      await service.updateRig('r1', { prefix: `p${i}` }, 'bench');
      writes.push(performance.now() - t0);
      const text = await readFile(join(dir, 'city.toml'), 'utf8');
      t0 = performance.now();
      await writeFileAtomic(floorFile, text);
      await runtime.run(() => ({
        records: [
          recordOf({
            type: 'config.changed',
            actor: 'bench',
            subject: 'floor',
            payload: {
              write_id: `f${i}`,
              sha256: 'x',
              source: 'api',
              kind: 'rig',
              op: 'updated',
              valid: true,
            },
          }),
        ],
        commit: () => undefined,
      }));
      floors.push(performance.now() - t0);
    }
    log(`write p50 ${q(writes, 0.5)} ms, floor ${q(floors, 0.5)} ms`);

    // 2. 64 edits at once.
    const n = 64;
    let t0 = performance.now();
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        service.updateRig(`r${i % 10}`, { default_branch: `b${i}` }, 'bench'),
      ),
    );
    const parallel = n / ((performance.now() - t0) / 1000);
    const floorRate = 1000 / q(floors, 0.5);

    // 3. hand edits: to the event, against the watch's own notice.
    const picked: number[] = [];
    const noticed: number[] = [];
    const handRounds = Math.max(10, Math.floor(rounds / 10));
    const base = await readFile(join(dir, 'city.toml'), 'utf8');
    for (let i = 0; i < handRounds; i++) {
      const before = await journal.head();
      t0 = performance.now();
      await writeFile(join(dir, 'city.toml'), `${base}\n# hand edit ${i}\n`);
      for (;;) {
        const [last] = await journal.list({ afterSeq: before, type: 'config.changed', limit: 1 });
        if (last) break;
        await new Promise((r) => setTimeout(r, 1));
      }
      picked.push(performance.now() - t0);
      const other = join(dir, `watched-${i}`);
      await writeFile(other, '');
      const seen = new Promise<number>((resolve) => {
        const w = watch(other, () => {
          w.close();
          resolve(performance.now());
        });
      });
      t0 = performance.now();
      await writeFile(other, `x${i}`);
      noticed.push((await seen) - t0);
    }

    // 4. reads.
    const reads: number[] = [];
    const parses: number[] = [];
    for (let i = 0; i < rounds; i++) {
      t0 = performance.now();
      await service.config();
      reads.push(performance.now() - t0);
      t0 = performance.now();
      parse(await readFile(join(dir, 'city.toml'), 'utf8'));
      parses.push(performance.now() - t0);
    }

    const figures = [
      fig('config write p50', q(writes, 0.5), 'ms', q(floors, 0.5), 'atomic write + one event'),
      fig('config write p99', q(writes, 0.99), 'ms', q(floors, 0.99), 'atomic write + one event'),
      fig(
        'parallel config writes',
        round(parallel, 1),
        'writes/s',
        round(floorRate, 1),
        'sequential floor rate',
      ),
      fig('hand edit → config.changed p50', q(picked, 0.5), 'ms', q(noticed, 0.5), 'fs.watch notice'),
      fig('GET /config view p50', q(reads, 0.5), 'ms', q(parses, 0.5), 'read + parse city.toml'),
    ];
    process.stdout.write(`${JSON.stringify({ scenario: 'config', rounds, figures })}\n`);
  } finally {
    await service.stop();
    await runtime.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
