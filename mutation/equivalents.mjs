#!/usr/bin/env node
// Every mutant a report leaves alive (survived, or reached by no test) must be killed or listed as
// equivalent in docs/testing.md ("Equivalent mutants": one row per place and mutator, `file:line:col`
// first). This prints the live mutants that are not listed and the rows that no longer match a live
// mutant (the code moved or a test now kills it), and exits 1 when any mutant is unexplained.
// Usage: node mutation/equivalents.mjs reports/mutation/mutation.json [docs/testing.md]
import { readFileSync } from 'node:fs';

const [reportFile, docFile = 'docs/testing.md'] = process.argv.slice(2);
if (!reportFile) {
  process.stderr.write('usage: node mutation/equivalents.mjs <report.json> [docs/testing.md]\n');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportFile, 'utf8'));
const listed = new Map();
for (const line of readFileSync(docFile, 'utf8').split('\n')) {
  const m = /^\|\s*`([^`]+:\d+:\d+)`\s*\|\s*(\w+)\s*\|/.exec(line);
  if (m) listed.set(`${m[1]} ${m[2]}`, false);
}
const unexplained = [];
for (const [file, { mutants }] of Object.entries(report.files)) {
  for (const m of mutants) {
    if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
    const key = `${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName}`;
    if (listed.has(key)) listed.set(key, true);
    else unexplained.push(`${key} → ${JSON.stringify(m.replacement ?? '')} (${m.status})`);
  }
}
const stale = [...listed].filter(([, used]) => !used).map(([key]) => key);
for (const key of stale) process.stdout.write(`listed but not alive: ${key}\n`);
for (const u of unexplained) process.stdout.write(`unexplained: ${u}\n`);
process.stdout.write(
  `${listed.size - stale.length} listed as equivalent, ${unexplained.length} unexplained, ${stale.length} stale rows\n`,
);
process.exit(unexplained.length ? 1 : 0);
