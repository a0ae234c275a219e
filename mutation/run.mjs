#!/usr/bin/env node
// npm run mutate [-- <slice>…]: runs each slice of mutation/slices.mjs in turn (all by default), each
// against its incremental record; after each, merges the records of every slice measured so far (a record
// is the slice's last full report) into reports/mutation/mutation.json and mutation.html; at the end prints
// the scores per folder (mutation/summary.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { slices } from './slices.mjs';

const asked = process.argv.slice(2);
const unknown = asked.filter((n) => !(n in slices));
if (unknown.length) {
  process.stderr.write(`unknown slice(s) ${unknown.join(', ')}; slices: ${Object.keys(slices).join(', ')}\n`);
  process.exit(2);
}

// One report of every slice measured so far: a slice's files are its own, so the union is the whole.
// Written after each slice, so a long run stopped part way still leaves the report of what it finished.
function merge() {
  const merged = { schemaVersion: '1', thresholds: { high: 85, low: 60 }, files: {} };
  const included = [];
  for (const name of Object.keys(slices)) {
    const file = `mutation/${name}.incremental.json`;
    if (!existsSync(file)) continue;
    const report = JSON.parse(readFileSync(file, 'utf8'));
    Object.assign(merged.files, report.files);
    merged.schemaVersion = report.schemaVersion;
    included.push(name);
  }
  mkdirSync('reports/mutation', { recursive: true });
  writeFileSync('reports/mutation/mutation.json', JSON.stringify(merged));
  const elements = readFileSync(
    createRequire(import.meta.url).resolve('mutation-testing-elements/mutation-test-elements.js'),
    'utf8',
  );
  writeFileSync(
    'reports/mutation/mutation.html',
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Mutation report (${included.join(', ')})</title>` +
      `<script>${elements.replaceAll('</script', '<\\/script')}</script></head><body>` +
      `<mutation-test-report-app></mutation-test-report-app><script>` +
      `document.querySelector('mutation-test-report-app').report = ${JSON.stringify(merged).replaceAll('<', '\\u003c')};` +
      `</script></body></html>`,
  );
  process.stdout.write(`\nreports/mutation/mutation.json and .html: slices ${included.join(', ')}\n`);
}

const names = asked.length ? asked : Object.keys(slices);
for (const name of names) {
  process.stdout.write(`\n== slice ${name}\n`);
  const run = spawnSync('npx', ['stryker', 'run', 'mutation/slice.conf.mjs'], {
    stdio: 'inherit',
    env: { ...process.env, STRYKER_SLICE: name },
  });
  if (run.status !== 0) {
    process.stderr.write(`slice ${name} failed (exit ${run.status ?? run.signal})\n`);
    process.exit(1);
  }
  merge();
}
spawnSync(process.execPath, ['mutation/summary.mjs', 'reports/mutation/mutation.json', '--folders'], {
  stdio: 'inherit',
});
