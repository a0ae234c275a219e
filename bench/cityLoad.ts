/**
 * `node dist/bench/cityLoad.js`: loading a real city (issue 27), printed as ONE JSON line on stdout
 * (progress on stderr). Upstream's examples/gastown (test/fixtures/upstream, gascity a46ccb1) is copied to a
 * temp dir with one rig importing the gastown pack, then loaded round by round, alternating with its floor:
 *
 * - load: `effectiveConfig` (read city.toml and every pack the city and its rig reach, discover agents/
 *   directories, compose, validate); floor: reading and parsing the same TOML files alone (city.toml, each
 *   pack.toml and agent.toml), no composition. Targets: p50 ≤ 50 ms and ≤ 3× the floor.
 *
 * Sizes: BENCH_QUICK=1 (fewer rounds) or BENCH_CITYLOAD_ROUNDS. Effects: a temp dir (removed at the end).
 */
import { existsSync } from 'node:fs';
import { appendFile, cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import { effectiveConfig } from '../actors/config/effectiveConfig.ts';
import { quantile } from './journalKit.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const rounds = Number(process.env.BENCH_CITYLOAD_ROUNDS ?? (quick ? 50 : 300));
const log = (message: string): void => void process.stderr.write(`bench cityLoad: ${message}\n`);
const round = (v: number, digits = 3): number => Math.round(v * 10 ** digits) / 10 ** digits;
const p50 = (xs: number[]) =>
  round(
    quantile(
      [...xs].sort((a, b) => a - b),
      0.5,
    ),
  );

/** The fixture, from the source tree (tsx) or from dist/bench after a build. */
function gastownFixture(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const rel = ['test', 'fixtures', 'upstream', 'gascity', 'examples', 'gastown'];
  const found = [join(here, '..', ...rel), join(here, '..', '..', ...rel)].find((p) => existsSync(p));
  if (!found) throw new Error('the gastown fixture is missing (test/fixtures/upstream)');
  return found;
}

/** The TOML files a load reads: city.toml, every pack.toml and agents/<name>/agent.toml. */
async function tomlFiles(dir: string): Promise<string[]> {
  const out = [join(dir, 'city.toml')];
  for (const pack of await readdir(join(dir, 'packs'))) {
    out.push(join(dir, 'packs', pack, 'pack.toml'));
    const agents = join(dir, 'packs', pack, 'agents');
    for (const a of await readdir(agents).catch(() => [] as string[]))
      if (existsSync(join(agents, a, 'agent.toml'))) out.push(join(agents, a, 'agent.toml'));
  }
  return out;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-bench-cityload-'));
  try {
    await cp(gastownFixture(), dir, { recursive: true });
    await appendFile(
      join(dir, 'city.toml'),
      '\n[[rigs]]\nname = "proj"\npath = "proj"\n\n[rigs.imports.gastown]\nsource = "packs/gastown"\n',
    );
    const files = await tomlFiles(dir);
    const first = await effectiveConfig({ path: dir, name: 'gastown' });
    const errors = first.problems.filter((p) => p.severity === 'error');
    if (errors.length > 0) throw new Error(`gastown does not load: ${JSON.stringify(errors)}`);
    log(`${first.composed.agents.length} agents from ${files.length} TOML files; ${rounds} rounds`);
    const loads: number[] = [];
    const floors: number[] = [];
    for (let i = 0; i < rounds + 10; i++) {
      let t0 = performance.now();
      await effectiveConfig({ path: dir, name: 'gastown' });
      const load = performance.now() - t0;
      t0 = performance.now();
      for (const f of files) parse(await readFile(f, 'utf8'));
      const floor = performance.now() - t0;
      if (i < 10) continue; // warm-up
      loads.push(load);
      floors.push(floor);
    }
    const value = p50(loads);
    const floor = p50(floors);
    const figures = [
      {
        name: 'gastown load (parse + compose + validate) p50',
        value,
        unit: 'ms',
        floor,
        floor_name: `read + parse the same ${files.length} TOML files`,
        target: '≤ 50 ms and ≤ 3× floor',
      },
    ];
    process.stdout.write(
      `${JSON.stringify({ scenario: 'cityLoad', rounds, agents: first.composed.agents.length, figures })}\n`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
