import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { scanLines } from '../actors/runtime/journal/lineReader.ts';
import { recoverLog, storedSeq } from '../actors/runtime/journal/logRecovery.ts';

async function tempFile(t: Test, bytes: Buffer | string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-file-recovery-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'events.jsonl');
  await writeFile(file, bytes);
  return file;
}

/** Runs the open-time scan on `file`: its index as [seq, offset] pairs, the size kept, the warnings. */
async function recover(file: string) {
  const warnings: string[] = [];
  const handle = await open(file, 'r+');
  try {
    const { index, size } = await recoverLog(handle, file, (m) => warnings.push(m));
    const offsets = Array.from({ length: index.head }, (_, i) => [i + 1, index.offsetOf(i + 1)]);
    return { offsets, size, warnings };
  } finally {
    await handle.close();
  }
}

/**
 * The scan as it was before it read seqs from bytes: every whole line through JSON.parse. The oracle
 * the fast scan must match on any file.
 */
function reference(bytes: Buffer, file: string) {
  const warnings: string[] = [];
  const offsets: Array<[number, number]> = [];
  let head = 0;
  let lineNo = 0;
  let end = 0;
  let corrupt = 0;
  let suspect: { offset: number; lineNo: number } | undefined;
  for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, end)) {
    lineNo++;
    if (suspect) {
      if (++corrupt <= 10) {
        warnings.push(
          `journal ${file}: skipping corrupt line ${suspect.lineNo} at byte offset ${suspect.offset}`,
        );
      }
      suspect = undefined;
    }
    const seq = storedSeq(bytes.toString('utf8', end, nl), head, lineNo);
    if (seq === undefined) {
      suspect = { offset: end, lineNo };
    } else {
      for (let s = head + 1; s <= seq; s++) offsets.push([s, end]);
      head = seq;
    }
    end = nl + 1;
  }
  if (corrupt > 10) warnings.push(`journal ${file}: skipped ${corrupt - 10} more corrupt lines`);
  const size = suspect ? suspect.offset : end;
  if (size < bytes.length) {
    warnings.push(
      `journal ${file}: truncating a torn last line at byte offset ${size} ` +
        `(${bytes.length - size} bytes, left by an interrupted write)`,
    );
  }
  return { offsets, size, warnings };
}

const line = (seq: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ seq, type: 'fixture', ts: '2025-06-15T12:00:00.000Z', actor: 'tester', ...extra }) + '\n';

t.test(
  'the byte scan visits every whole line at any chunk size, then reports where the torn tail starts',
  async (t) => {
    const texts = Array.from({ length: 40 }, (_, i) => 'é'.repeat((i * 7) % 23) + 'x'.repeat(i % 5));
    const whole = texts.map((x) => x + '\n').join('');
    for (const tail of ['', 'torn', 'é']) {
      const file = await tempFile(t, whole + tail);
      const handle = await open(file, 'r');
      try {
        for (const chunk of [1, 2, 3, 5, 16, 64, 4096]) {
          const seen: Array<[number, string]> = [];
          const end = await scanLines(
            handle,
            Buffer.byteLength(whole + tail),
            (buf, start, stop, offset) => {
              if (buf[stop] !== 0x0a) t.fail(`no newline after the line at ${offset}`);
              seen.push([offset, buf.toString('utf8', start, stop)]);
            },
            chunk,
          );
          let offset = 0;
          const want = texts.map((text) => {
            const at = offset;
            offset += Buffer.byteLength(text) + 1;
            return [at, text];
          });
          t.same(seen, want, `chunks of ${chunk}, tail ${JSON.stringify(tail)}`);
          t.equal(end, Buffer.byteLength(whole));
        }
      } finally {
        await handle.close();
      }
    }
  },
);

t.test('a corrupt middle line whose seq prefix is intact is still reported and skipped', async (t) => {
  const lines = [line(1), '{"seq":2,"type":"fixture"} junk\n', line(3), '{"seq":4,"type":"fixture","x":[}\n'];
  const file = await tempFile(t, lines.join(''));
  const got = await recover(file);
  const offset = (i: number) => Buffer.byteLength(lines.slice(0, i).join(''));
  t.same(got.offsets, [
    [1, 0],
    [2, offset(2)],
    [3, offset(2)],
  ]);
  t.equal(got.warnings.length, 2);
  t.match(got.warnings[0], `skipping corrupt line 2 at byte offset ${offset(1)}`);
  t.match(got.warnings[1], `truncating a torn last line at byte offset ${offset(3)}`);
  t.equal(got.size, offset(3));
  t.equal(await readFile(file, 'utf8'), lines.slice(0, 3).join(''), 'the invalid last line is cut');
});

t.test('lines across read chunks and longer than a chunk are scanned whole', async (t) => {
  // The scan reads 1 MiB at a time: lines of ~300 bytes straddle each chunk end, and one line is 2.5 MiB.
  const lines: string[] = [];
  for (let seq = 1; seq <= 9000; seq++) {
    lines.push(line(seq, { payload: seq === 4000 ? 'é'.repeat(1_300_000) : 'ü'.repeat(seq % 300) }));
  }
  const text = lines.join('');
  const file = await tempFile(t, text + '{"seq":9001,"type":"fix');
  const got = await recover(file);
  let offset = 0;
  const want = lines.map((l, i) => {
    const at = offset;
    offset += Buffer.byteLength(l);
    return [i + 1, at];
  });
  t.same(got.offsets, want, 'every seq at its line');
  t.equal(got.size, Buffer.byteLength(text));
  t.equal(got.warnings.length, 1, 'the torn tail, nothing else');
  t.equal((await readFile(file)).length, Buffer.byteLength(text));
});

/** A small seeded PRNG (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let r = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

t.test('on damaged logs the scan agrees with parsing every line', async (t) => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    const rand = random(seed);
    const parts: string[] = [];
    let seq = 0;
    for (let n = 0; n < 6000; n++) {
      const roll = rand();
      const next = line(++seq, { message: 'é'.repeat(Math.floor(rand() * 400)), payload: { n, ok: true } });
      if (roll < 0.9) parts.push(next);
      else if (roll < 0.92)
        parts.push(next.slice(0, Math.floor(rand() * next.length)) + '\n'); // cut short
      else if (roll < 0.94)
        parts.push(line(Math.max(1, seq - 3)), next); // a stray copy of an earlier seq
      else if (roll < 0.95)
        parts.push(line(seq + 5)); // a seq further than its line
      else if (roll < 0.96)
        parts.push(`{"type":"x","seq":${seq}}\n`); // valid, in another shape
      else if (roll < 0.97)
        parts.push(next.replace('"', ' "')); // whitespace inside the line
      else if (roll < 0.98)
        parts.push('\n', next); // an empty line
      else if (roll < 0.99)
        parts.push(next.replace(/"ts":/, '"ts":\u0000')); // a NUL block
      else parts.push(next.replace('}', '}}')); // trailing garbage
    }
    const tail = ['', line(++seq).slice(0, 20), '{"seq":1,"bad"\n', '\u0000\u0000\u0000'][seed % 4]!;
    const bytes = Buffer.from(parts.join('') + tail);
    const file = await tempFile(t, bytes);
    const got = await recover(file);
    const want = reference(bytes, file);
    t.same(got.offsets, want.offsets, `seed ${seed}: the same index`);
    t.same(got.warnings, want.warnings, `seed ${seed}: the same warnings`);
    t.equal(got.size, want.size, `seed ${seed}: the same size kept`);
    t.same(await readFile(file), bytes.subarray(0, want.size), `seed ${seed}: the same truncation`);
  }
});
