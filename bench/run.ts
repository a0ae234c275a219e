/**
 * `npm run bench`: runs every benchmark scenario as its own process (so one scenario's heap and sockets
 * never colour another's figures), then writes `bench/report.json` and a readable `bench/REPORT.md`.
 *
 * Each scenario prints one JSON object as the last line of its stdout. When it has a `figures` array of
 * `{name, value, unit, floor?, floor_name?, target?}` the table shows the floor measured in the same run and
 * the ratio; any other shape is flattened into `path = value` rows.
 * `BENCH_QUICK=1` asks every scenario for its small sizes; `BENCH_ONLY=a,b` runs a subset and puts its
 * sections in place of theirs in the existing REPORT.md, keeping the others.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mergeReport, renderReport, type ScenarioResult } from './report.ts';

const here = dirname(fileURLToPath(import.meta.url));
const SCENARIOS = [
  'journal',
  'events',
  'supervisorStream',
  'create',
  'beads',
  'sessions',
  'sessionStream',
  'agents',
  'extmsg',
  'formulas',
  'config',
  'cityLoad',
  'configReload',
  'cli',
  'coldstart',
  'dashboard',
  'svcProxy',
  'scaleout',
  'acp',
  'work',
];

function runScenario(name: string): Promise<ScenarioResult> {
  const file = join(here, `${name}.js`);
  if (!existsSync(file)) return Promise.resolve({ name, ok: false, error: `no ${name}.js in ${here}` });
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', file], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: process.env,
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('close', (code) => {
      const seconds = (Date.now() - started) / 1000;
      const last = out.trim().split('\n').pop() ?? '';
      try {
        if (code !== 0) throw new Error(`exited with ${code}`);
        resolve({ name, ok: true, seconds, data: JSON.parse(last) as unknown });
      } catch (err) {
        resolve({
          name,
          ok: false,
          seconds,
          error: `${(err as Error).message}; last line: ${last.slice(0, 200)}`,
        });
      }
    });
  });
}

const only = process.env.BENCH_ONLY?.split(',').filter(Boolean);
const results: ScenarioResult[] = [];
for (const name of SCENARIOS.filter((s) => !only || only.includes(s))) {
  process.stderr.write(`bench: ${name}…\n`);
  const result = await runScenario(name);
  results.push(result);
  process.stderr.write(`bench: ${name} ${result.ok ? 'done' : `FAILED: ${result.error}`}\n`);
}

const report = {
  generated_at: new Date().toISOString(),
  mode: process.env.BENCH_QUICK ? 'quick' : 'full',
  node: process.version,
  scenarios: results,
};
const outDir = join(here, '..', '..', 'bench');
writeFileSync(join(outDir, 'report.json'), JSON.stringify(report, null, 2) + '\n');
// A subset refreshes its sections of the report and keeps the others, each with when it was measured.
const previous = join(outDir, 'REPORT.md');
writeFileSync(
  previous,
  only && existsSync(previous)
    ? mergeReport(readFileSync(previous, 'utf8'), report, SCENARIOS)
    : renderReport(report),
);
process.stdout.write(JSON.stringify(report) + '\n');
