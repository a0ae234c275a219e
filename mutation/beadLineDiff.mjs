#!/usr/bin/env node
// The evidence behind the line codec's equivalent mutants (docs/testing.md): each live mutant of
// machines/beads/beadLine.ts in a report, run against the original over lines JSON.stringify wrote with every
// kind of key (whole, after five kinds of line, with and without the store's prefix, and cut at every byte),
// prints `same` or the first line where the two answer differently. A mutant that hangs prints `hangs`.
// Usage: node mutation/beadLineDiff.mjs <report.json>
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const FILE = 'machines/beads/beadLine.ts';
const root = resolve(fileURLToPath(import.meta.url), '../..');
const source = readFileSync(join(root, FILE), 'utf8');
const offset = (text, { line, column }) => {
  let at = 0;
  for (let l = 1; l < line; l++) at = text.indexOf('\n', at) + 1;
  return at + column - 1;
};

function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

/** The same cases every time: 3,000 lines, each after five kinds of line, and every cut of the first 30. */
function cases() {
  const rand = prng(42);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const KEYS = ['a"b', 'back\\', 'nl\n', ':', ',', ':x', ',"', '', 'é', 'x', 'seqs', 'se', 'types', 'typ'];
  KEYS.push('payloads', 'pay', 'beads', 'bea', 'id', 'idx', 'i', 'issue_types', 'issue', 'metadatas', 'meta');
  KEYS.push('bead', 'seq', 'type', 'payload', 'issue_type', 'metadata');
  const VALUES = [
    '',
    [''],
    ['', ':'],
    ':',
    ',"',
    'bn-1',
    'é',
    'a"b',
    0,
    3,
    -2.5e3,
    1e21,
    1.5,
    null,
    true,
    false,
  ];
  VALUES.push({}, [], { id: 'bn-2' }, [1, 'x', [true]], { a: '"', b: [{ c: '}' }] }, 'bn-7', 'bnx7', 'bé-7');
  const IDS = [
    'bn-7',
    'bn-70',
    'bnx7',
    'bn-07',
    'bn-0',
    'bn-',
    'bo-7',
    'b-7',
    'bn-7x',
    'bn-1234567890123456',
  ];
  IDS.push('x', '', 'a"b', 'bé-7', 'bn-é');
  const TYPES = ['bead.created', 'bead.updated', 'bead.closed', 'bead.deleted', 'bead.x', 'bead.', 'bead'];
  TYPES.push('beads.updated', 'mail.sent', 'bead.up"dated', 'é', 'bead.createdx');
  const extra = (base) => {
    const out = { ...base };
    for (let n = Math.floor(rand() * 3); n > 0; n--) {
      const key = pick(KEYS);
      if (!(key in out)) out[key] = pick(VALUES);
    }
    return Object.fromEntries(
      Object.keys(out)
        .sort(() => rand() - 0.5)
        .map((k) => [k, out[k]]),
    );
  };
  const event = () => {
    const bead = {};
    if (rand() < 0.5) bead.title = pick(VALUES);
    if (rand() < 0.9) bead.id = rand() < 0.85 ? pick(IDS) : pick(VALUES);
    if (rand() < 0.3) bead.issue_type = rand() < 0.8 ? 'task' : pick(VALUES);
    if (rand() < 0.3) bead.metadata = rand() < 0.8 ? { k: pick(VALUES) } : pick(VALUES);
    const b = rand() < 0.85 ? extra(bead) : pick(VALUES);
    const payload = rand() < 0.85 ? (rand() < 0.6 ? { bead: b } : extra({ bead: b })) : pick(VALUES);
    const seqs = [0, 10, 999_999_999_999_999, 1_000_000_000_000_000, 1.5, -3, '12', null, 1e21];
    const seq = rand() < 0.85 ? 1 + Math.floor(rand() * 1e6) : pick(seqs);
    const e = { seq, type: pick(TYPES), payload };
    for (const key of ['seq', 'type', 'payload']) if (rand() < 0.05) delete e[key];
    return rand() < 0.5 ? e : extra(e);
  };
  const lines = Array.from({ length: 3000 }, () => JSON.stringify(event()));
  const out = [];
  for (const text of lines)
    for (const before of ['', '{"junk":1}\n', '{}\n', '{"a":[1]}\n', '{"":""}\n']) {
      const start = Buffer.byteLength(before);
      out.push([Buffer.from(`${before}${text}\n{"more":1}`), start, start + Buffer.byteLength(text), text]);
    }
  for (const text of lines.slice(0, 30)) {
    const buf = Buffer.from(`{"junk":1}\n${text}\n`);
    for (let end = 11; end < 11 + Buffer.byteLength(text); end++) out.push([buf, 11, end, `cut: ${text}`]);
  }
  return out;
}

async function compare(mutantFile) {
  const original = (await import(pathToFileURL(join(root, FILE)).href)).beadLineOf;
  const mutant = (await import(pathToFileURL(mutantFile).href)).beadLineOf;
  const prefix = new Uint8Array(Buffer.from('bn', 'latin1'));
  const shown = (f, [buf, start, end], p) => {
    const r = f(buf, start, end, p);
    return JSON.stringify(r && { ...r });
  };
  for (const c of cases())
    for (const p of [undefined, prefix]) {
      const [a, b] = [shown(original, c, p), shown(mutant, c, p)];
      if (a !== b) return `${c[3]}${p ? ' (with the prefix)' : ''}: ${a} vs ${b}`;
    }
  return undefined;
}

if (process.argv[2] === '--one') {
  const diff = await compare(process.argv[3]);
  process.stdout.write(diff ? `differs: ${diff}` : 'same');
} else {
  const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'beadline-diff-'));
  let n = 0;
  for (const m of report.files[FILE]?.mutants ?? []) {
    if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
    const file = join(dir, `mutant${n++}.ts`);
    const [a, b] = [offset(source, m.location.start), offset(source, m.location.end)];
    // Stryker swaps a node of the syntax tree: an expression keeps its place in the one around it.
    const replacement = m.mutatorName === 'BlockStatement' ? m.replacement : `(${m.replacement})`;
    writeFileSync(file, source.slice(0, a) + replacement + source.slice(b));
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--one', file],
      {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    const said = run.error ? 'hangs' : run.stdout.trim() || run.stderr.trim().split('\n')[0];
    const where = `${m.location.start.line}:${m.location.start.column} ${m.mutatorName}`;
    process.stdout.write(`${where} → ${JSON.stringify(m.replacement)}: ${said.slice(0, 400)}\n`);
  }
  rmSync(dir, { recursive: true, force: true });
}
