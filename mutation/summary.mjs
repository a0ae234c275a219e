#!/usr/bin/env node
// Scores of a Stryker JSON report (mutation-testing-report-schema), per file and in all, the way
// docs/testing.md gives them: total = (killed + timed out) / every valid mutant; covered = the same over
// the mutants some test reached. `--survivors` lists each surviving or uncovered mutant by place;
// `--folders` gives the scores per folder (machines/<family>/, machines/ and schemas/) instead of per file.
// Usage: node mutation/summary.mjs reports/mutation/schemas.json [--survivors | --folders]
import { readFileSync } from 'node:fs';

const [file, flag] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node mutation/summary.mjs <report.json> [--survivors]\n');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const zero = () => ({
  Killed: 0,
  Timeout: 0,
  Survived: 0,
  NoCoverage: 0,
  CompileError: 0,
  RuntimeError: 0,
  Ignored: 0,
});
const score = (c) => {
  const detected = c.Killed + c.Timeout;
  const valid = detected + c.Survived + c.NoCoverage;
  const covered = detected + c.Survived;
  const pct = (a, b) => (b ? ((100 * a) / b).toFixed(1) : '—');
  return `${pct(detected, valid)} % / ${pct(detected, covered)} % (${c.Killed} killed, ${c.Timeout} timed out, ${c.Survived} survived, ${c.NoCoverage} no coverage, ${c.CompileError} compile errors; ${valid} valid)`;
};
const all = zero();
const rows = [];
const folders = new Map();
const count = (key, status) => {
  if (!folders.has(key)) folders.set(key, zero());
  const c = folders.get(key);
  c[status] = (c[status] ?? 0) + 1;
};
for (const [name, f] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const c = zero();
  const parts = name.split('/');
  const family = parts.length > 2 ? `${parts[0]}/${parts[1]}/` : `${parts[0]}/ (top level)`;
  for (const m of f.mutants) {
    c[m.status] = (c[m.status] ?? 0) + 1;
    all[m.status] = (all[m.status] ?? 0) + 1;
    count(`${parts[0]}/`, m.status);
    if (parts[0] === 'machines') count(family, m.status);
    if (flag === '--survivors' && (m.status === 'Survived' || m.status === 'NoCoverage'))
      rows.push(
        `${name}:${m.location.start.line}:${m.location.start.column} ${m.status} ${m.mutatorName} → ${JSON.stringify(m.replacement ?? '')}`,
      );
  }
  if (flag !== '--folders') process.stdout.write(`${name}: ${score(c)}\n`);
}
if (flag === '--folders')
  for (const [key, c] of [...folders].sort(([a], [b]) => a.localeCompare(b)))
    process.stdout.write(`${key}: ${score(c)}\n`);
process.stdout.write(`ALL: ${score(all)}\n`);
for (const r of rows) process.stdout.write(r + '\n');
