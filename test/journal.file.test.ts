import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Test } from 'tap';
import { SeqConflictError, UnavailableError } from '../actors/runtime/errors.ts';
import { FileJournalBackend, MSG_ID_WINDOW } from '../actors/runtime/journal/fileJournal.ts';
import type { FileJournal, FileJournalOptions } from '../actors/runtime/journal/fileJournal.ts';
import type { JournalEvent } from '../actors/runtime/journal/journal.ts';
import {
  CHUNK_BYTES,
  MAX_CHUNK_BYTES,
  readBackward,
  readForward,
} from '../actors/runtime/journal/lineReader.ts';
import { readBackwardMatching, readForwardMatching } from '../actors/runtime/journal/needleReader.ts';
import type { WriteFn } from '../actors/runtime/journal/logWriter.ts';
import { journalConformance, take } from './conformance/journalConformance.ts';
import { recordingLogger } from './helpers/recordingLogger.ts';

const draft = (type: string, extra: Partial<JournalEvent> = {}) => ({ type, actor: 'tester', ...extra });

/** A stored line as the journal writes it. */
const line = (seq: number, extra: Partial<JournalEvent> = {}) =>
  JSON.stringify({ seq, type: 'fixture', ts: '2025-06-15T12:00:00.000Z', actor: 'tester', ...extra }) + '\n';

/**
 * A fresh directory removed when the test ends. Not `t.testdir()`: its path is derived from the test
 * name, so two runs of this file at once (a coverage run beside a plain one) would clobber each other.
 */
async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-file-journal-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `lines` as a log file and returns its path and each line's byte offset. */
async function fixture(dir: string, lines: string[]): Promise<{ file: string; offsets: number[] }> {
  const file = join(dir, '.gc', 'events.jsonl');
  await mkdir(join(dir, '.gc'), { recursive: true });
  await writeFile(file, lines.join(''));
  const offsets: number[] = [];
  let offset = 0;
  for (const l of lines) {
    offsets.push(offset);
    offset += Buffer.byteLength(l);
  }
  return { file, offsets };
}

/** `texts` as a log's lines, open for reading (closed at the end of `t`), with each line's start and end. */
async function linesFile(t: Test, texts: readonly string[]) {
  const { file, offsets } = await fixture(
    await tempDir(t),
    texts.map((x) => x + '\n'),
  );
  const ends = [...offsets.slice(1), (await readFile(file)).length];
  const handle = await open(file, 'r');
  t.teardown(() => handle.close());
  return { handle, offsets, ends };
}

/** Everything a chunked reader yields, in order. */
async function collect<T>(chunks: AsyncGenerator<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of chunks) out.push(...chunk);
  return out;
}

async function openLog(t: Test, file: string, options: FileJournalOptions = {}): Promise<FileJournal> {
  const backend = new FileJournalBackend({ warn: () => undefined, ...options });
  t.teardown(() => backend.close());
  return backend.open({ name: 'city', file });
}

const fileLines = async (file: string) => (await readFile(file, 'utf8')).split('\n');

/** Records the positional reads every FileHandle makes until the test ends. */
async function spyOnReads(t: Test): Promise<Array<{ length: number; position: number }>> {
  const probe = await open(fileURLToPath(import.meta.url), 'r');
  const proto = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  const original = proto.read;
  const reads: Array<{ length: number; position: number }> = [];
  proto.read = function (this: FileHandle, ...args: unknown[]) {
    reads.push({ length: args[2] as number, position: args[3] as number });
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as FileHandle['read'];
  t.teardown(() => void (proto.read = original));
  return reads;
}

/** A writer that counts its calls and can be told to fail like a full disk, after writing half. */
function flakyWriter() {
  const state = { writes: 0, failing: false };
  const writer: WriteFn = async (handle, data) => {
    state.writes++;
    if (!state.failing) return (await handle.write(data)).bytesWritten;
    await handle.write(data.subarray(0, Math.floor(data.length / 2)));
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };
  return { state, writer };
}

t.test('conformance', async (t) => {
  const dir = await tempDir(t);
  let n = 0;
  journalConformance(t, {
    backend: async () => new FileJournalBackend(),
    location: () => ({ name: `city${++n}`, file: join(dir, `city${n}`, '.gc', 'events.jsonl') }),
    liveResources: async (j) => (j as FileJournal).liveResources(),
    child: (location) => ['file', location.file],
  });
});

t.test('the log format', async (t) => {
  t.test('writes one JSON object per line, fields in order, creating parent dirs', async (t) => {
    const file = join(await tempDir(t), 'city', '.gc', 'events.jsonl');
    const j = await openLog(t, file);
    await j.append({
      payload: { n: 1 },
      message: 'hi',
      subject: 'gc-1',
      actor: 'mayor',
      ts: '2025-06-15T12:00:00Z',
      type: 'bead.created',
    });
    await j.append(draft('bare'));
    const [first, second, rest] = await fileLines(file);
    t.equal(
      first,
      '{"seq":1,"type":"bead.created","ts":"2025-06-15T12:00:00Z","actor":"mayor",' +
        '"subject":"gc-1","message":"hi","payload":{"n":1}}',
    );
    t.same(Object.keys(JSON.parse(second!)), ['seq', 'type', 'ts', 'actor'], 'absent fields are left out');
    t.equal(rest, '', 'the file ends with a newline');
  });

  t.test('the backend is kind file and answers one journal per file', async (t) => {
    const backend = new FileJournalBackend();
    t.teardown(() => backend.close());
    t.equal(backend.kind, 'file');
    const dir = await tempDir(t);
    const file = join(dir, 'events.jsonl');
    const [a, b] = await Promise.all([
      backend.open({ name: 'c', file }),
      backend.open({ name: 'c', file: `${dir}//./events.jsonl` }),
    ]);
    t.equal(a, b);
  });

  t.test('a log that cannot be created is journal_unavailable', async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, 'not-a-dir'), 'x');
    const backend = new FileJournalBackend();
    t.teardown(() => backend.close());
    await t.rejects(backend.open({ name: 'c', file: join(dir, 'not-a-dir', 'events.jsonl') }), {
      name: 'UnavailableError',
      code: 'journal_unavailable',
    });
  });
});

t.test('appending', async (t) => {
  t.test('pipelined appends are group-committed into a few writes, quickly', async (t) => {
    const { state, writer } = flakyWriter();
    const j = await openLog(t, join(await tempDir(t), 'events.jsonl'), { writer });
    const started = performance.now();
    const stored = await Promise.all(Array.from({ length: 20_000 }, (_, i) => j.append(draft(`e${i}`))));
    const ms = performance.now() - started;
    t.same(
      stored.map((e) => e.seq),
      Array.from({ length: 20_000 }, (_, i) => i + 1),
    );
    t.ok(state.writes <= 10, `${state.writes} writes for 20000 appends`);
    // A loose floor (the target is ≥ 50k/s, see bench/fileJournal.bench.ts): catches a per-append rescan.
    t.ok(ms < 4000, `20000 pipelined appends took ${Math.round(ms)} ms`);
  });

  t.test('appends never read the file (no rescan)', async (t) => {
    const lines = Array.from({ length: 2000 }, (_, i) => line(i + 1));
    const { file } = await fixture(await tempDir(t), lines);
    const j = await openLog(t, file);
    const reads = await spyOnReads(t);
    for (let i = 0; i < 100; i++) await j.append(draft('seq'));
    await Promise.all(Array.from({ length: 100 }, () => j.append(draft('piped'))));
    t.equal(await j.head(), 2200);
    t.same(reads, [], 'no read while appending');
  });

  t.test("fsync 'batch' flushes once per written batch, 'never' not at all", async (t) => {
    const probe = await open(fileURLToPath(import.meta.url), 'r');
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const original = proto.datasync;
    let syncs = 0;
    proto.datasync = function (this: FileHandle) {
      syncs++;
      return original.call(this);
    };
    t.teardown(() => void (proto.datasync = original));
    for (const fsync of ['batch', 'never'] as const) {
      syncs = 0;
      const { state, writer } = flakyWriter();
      const j = await openLog(t, join(await tempDir(t), `${fsync}.jsonl`), { fsync, writer });
      await Promise.all(Array.from({ length: 500 }, () => j.append(draft('a'))));
      await j.append(draft('b'));
      t.equal(
        syncs,
        fsync === 'batch' ? state.writes : 0,
        `${fsync}: ${syncs} syncs, ${state.writes} writes`,
      );
    }
  });

  t.test('fencing is judged when the append is sequenced, inside a batch too', async (t) => {
    const { state, writer } = flakyWriter();
    const file = join(await tempDir(t), 'events.jsonl');
    const j = await openLog(t, file, { writer });
    const results = await Promise.allSettled([
      j.append(draft('a'), { expectedSeq: 0 }),
      j.append(draft('b'), { expectedSeq: 1 }),
      j.append(draft('c'), { expectedSeq: 1 }),
      j.append(draft('d'), { expectedSeq: 2 }),
    ]);
    t.same(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    const conflict = results[2]?.status === 'rejected' ? (results[2].reason as unknown) : undefined;
    t.ok(conflict instanceof SeqConflictError, 'SeqConflictError');
    t.match(conflict, { expected: 1, actual: 2 });
    t.equal(state.writes, 1, 'one batch');
    t.same(
      (await j.list()).map((e) => e.type),
      ['a', 'b', 'd'],
      'the conflicting append wrote nothing',
    );
  });

  t.test('msg ids dedupe within a batch and a bounded window, for the process lifetime only', async (t) => {
    const file = join(await tempDir(t), 'events.jsonl');
    const backend = new FileJournalBackend();
    const j = await backend.open({ name: 'c', file });
    const [a, b] = await Promise.all([
      j.append(draft('a'), { msgId: 'same' }),
      j.append(draft('a'), { msgId: 'same' }),
    ]);
    t.equal(a.seq, b.seq, 'a retry in the same batch answers the first');
    await Promise.all(
      Array.from({ length: MSG_ID_WINDOW }, (_, i) => j.append(draft('w'), { msgId: `id-${i}` })),
    );
    const head = await j.head();
    t.equal((await j.append(draft('w'), { msgId: `id-${MSG_ID_WINDOW - 1}` })).seq, head, 'recent id');
    t.equal((await j.append(draft('a'), { msgId: 'same' })).seq, head + 1, 'the oldest id left the window');
    await backend.close();
    const j2 = await openLog(t, file);
    t.equal(
      (await j2.append(draft('w'), { msgId: `id-${MSG_ID_WINDOW - 1}` })).seq,
      head + 2,
      'ids are not remembered across a restart',
    );
  });

  t.test('an event that is not JSON is refused without taking a seq', async (t) => {
    const j = await openLog(t, join(await tempDir(t), 'events.jsonl'));
    const [bad, good] = await Promise.allSettled([
      j.append(draft('bad', { payload: { n: 1n } })),
      j.append(draft('good')),
    ]);
    t.match(bad, { status: 'rejected', reason: { name: 'ValidationError' } });
    t.match(good, { status: 'fulfilled', value: { seq: 1 } });
  });

  t.test('closing finishes queued appends, then refuses new ones', async (t) => {
    const file = join(await tempDir(t), 'events.jsonl');
    const backend = new FileJournalBackend();
    const j = await backend.open({ name: 'c', file });
    const pending = Array.from({ length: 100 }, () => j.append(draft('a')));
    const closed = j.close();
    t.equal((await Promise.all(pending)).length, 100);
    await closed;
    await t.rejects(j.append(draft('late')), { name: 'UnavailableError', code: 'journal_unavailable' });
    await t.rejects(j.list(), UnavailableError);
    t.equal((await fileLines(file)).length, 101);
    await backend.close();
  });
});

t.test('write failures', async (t) => {
  t.test(
    'a failed write is journal_unavailable, leaves no half line, and the journal recovers',
    async (t) => {
      const { state, writer } = flakyWriter();
      const file = join(await tempDir(t), 'events.jsonl');
      const j = await openLog(t, file, { writer });
      await j.append(draft('a'));
      await j.append(draft('b'), { msgId: 'b' });
      const before = await readFile(file, 'utf8');
      const sub = j.subscribe(2);
      t.teardown(() => sub.close());
      state.failing = true;
      const failed = await Promise.allSettled([
        j.append(draft('lost1')),
        j.append(draft('lost2'), { expectedSeq: 3 }),
        j.append(draft('b'), { msgId: 'b' }),
      ]);
      t.match(failed, [
        { status: 'rejected', reason: { name: 'UnavailableError', code: 'journal_unavailable' } },
        { status: 'rejected', reason: { name: 'UnavailableError', code: 'journal_unavailable' } },
        { status: 'fulfilled', value: { seq: 2 } },
      ]);
      t.match((failed[0] as PromiseRejectedResult).reason, { cause: { code: 'ENOSPC' } });
      t.equal(await readFile(file, 'utf8'), before, 'the half-written batch was cut off');
      t.equal(await j.head(), 2);
      state.failing = false;
      t.equal((await j.append(draft('c'))).seq, 3, 'the next append takes the seq the failed one did not');
      t.same(
        (await take(sub, 1)).map((e) => e.type),
        ['c'],
        'subscribers never saw the failed events',
      );
      t.same(
        (await j.list()).map((e) => e.type),
        ['a', 'b', 'c'],
      );
    },
  );

  t.test('short writes are completed', async (t) => {
    const file = join(await tempDir(t), 'events.jsonl');
    const writer: WriteFn = async (handle, data) => (await handle.write(data.subarray(0, 7))).bytesWritten;
    const j = await openLog(t, file, { writer });
    await Promise.all([j.append(draft('a')), j.append(draft('b', { payload: { long: 'x'.repeat(100) } }))]);
    t.same(
      (await fileLines(file)).slice(0, 2).map((l) => (JSON.parse(l) as JournalEvent).seq),
      [1, 2],
    );
  });

  t.test('when cutting back fails too, the next write repairs the file first', async (t) => {
    const { state, writer } = flakyWriter();
    const file = join(await tempDir(t), 'events.jsonl');
    const j = await openLog(t, file, { writer });
    await j.append(draft('a'));
    const probe = await open(fileURLToPath(import.meta.url), 'r');
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const original = proto.truncate;
    proto.truncate = async () => {
      throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
    };
    t.teardown(() => void (proto.truncate = original));
    state.failing = true;
    await t.rejects(j.append(draft('lost')), { code: 'journal_unavailable' });
    t.not((await readFile(file, 'utf8')).endsWith('\n'), 'a half line is left while the disk refuses');
    proto.truncate = original;
    state.failing = false;
    t.equal((await j.append(draft('b'))).seq, 2);
    t.same(
      (await fileLines(file)).map((l) => (l ? (JSON.parse(l) as JournalEvent).type : l)),
      ['a', 'b', ''],
    );
  });
});

t.test('reading through the index', async (t) => {
  // ~300 bytes per line, so the log spans many read chunks.
  const lines = Array.from({ length: 2000 }, (_, i) => line(i + 1, { payload: { pad: 'x'.repeat(220) } }));
  const total = lines.reduce((n, l) => n + Buffer.byteLength(l), 0);

  t.test('a subscription seeks to afterSeq+1 and reads in bounded chunks', async (t) => {
    const { file, offsets } = await fixture(await tempDir(t), lines);
    const j = await openLog(t, file);
    const reads = await spyOnReads(t);
    const sub = j.subscribe(1500);
    t.teardown(() => sub.close());
    const got = await take(sub, 500);
    t.same(
      got.map((e) => e.seq),
      Array.from({ length: 500 }, (_, i) => i + 1501),
    );
    t.equal(reads[0]?.position, offsets[1500], 'the first read starts at the line of seq 1501');
    t.ok((reads[0]?.length ?? 0) <= CHUNK_BYTES, 'the first read is at most one chunk');
    t.ok(
      reads.every((r) => r.length <= MAX_CHUNK_BYTES),
      'every read is bounded, however long the catch-up',
    );
    t.ok(
      reads.some((r) => r.length > CHUNK_BYTES),
      'a long catch-up reads in growing chunks',
    );
    const bytes = reads.reduce((n, r) => n + r.length, 0);
    t.equal(bytes, total - offsets[1500]!, 'nothing before seq 1501 is read');
  });

  t.test('list seeks by after-seq and before-seq', async (t) => {
    const { file, offsets } = await fixture(await tempDir(t), lines);
    const j = await openLog(t, file);
    const reads = await spyOnReads(t);
    t.same(
      (await j.list({ afterSeq: 1800, limit: 3 })).map((e) => e.seq),
      [1801, 1802, 1803],
    );
    t.ok(
      reads.every((r) => r.position >= offsets[1800]!),
      'after-seq: nothing before seq 1801 is read',
    );
    reads.length = 0;
    t.same(
      (await j.list({ beforeSeq: 4 })).map((e) => e.seq),
      [1, 2, 3],
    );
    t.ok(
      reads.every((r) => r.position + r.length <= offsets[3]!),
      'before-seq: nothing from seq 4 on is read',
    );
  });

  t.test('a newest-first tail reads only the end of the log', async (t) => {
    const { file } = await fixture(await tempDir(t), lines);
    const j = await openLog(t, file);
    const reads = await spyOnReads(t);
    t.same(
      (await j.list({ order: 'desc', limit: 5 })).map((e) => e.seq),
      [2000, 1999, 1998, 1997, 1996],
    );
    t.equal(reads.length, 1, 'one chunk');
    t.ok(reads[0]!.position >= total - CHUNK_BYTES, 'from the end of the file');
    reads.length = 0;
    t.same(
      (await j.list({ order: 'desc', beforeSeq: 1000, limit: 400 })).map((e) => e.seq),
      Array.from({ length: 400 }, (_, i) => 999 - i),
      'a keyset page backwards across chunks',
    );
  });

  t.test('lines longer than a read chunk are read whole both ways', async (t) => {
    const big = Array.from({ length: 5 }, (_, i) => line(i + 1, { payload: 'y'.repeat(CHUNK_BYTES * 2) }));
    const { file } = await fixture(await tempDir(t), big);
    const j = await openLog(t, file);
    t.same(
      (await j.list()).map((e) => [e.seq, (e.payload as string).length]),
      Array.from({ length: 5 }, (_, i) => [i + 1, CHUNK_BYTES * 2]),
    );
    t.same(
      (await j.list({ order: 'desc' })).map((e) => e.seq),
      [5, 4, 3, 2, 1],
    );
  });

  t.test('a read failure is journal_unavailable for list and subscribers', async (t) => {
    const { file } = await fixture(await tempDir(t), lines.slice(0, 10));
    const j = await openLog(t, file);
    const probe = await open(fileURLToPath(import.meta.url), 'r');
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const original = proto.read;
    proto.read = async () => {
      throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
    };
    t.teardown(() => void (proto.read = original));
    await t.rejects(j.list(), {
      name: 'UnavailableError',
      code: 'journal_unavailable',
      cause: { code: 'EIO' },
    });
    const sub = j.subscribe(0);
    await t.rejects(take(sub, 1), { name: 'UnavailableError', code: 'journal_unavailable' });
    t.equal(j.liveResources(), 0, 'the failed subscription is gone');
    proto.read = original;
    t.equal((await j.list()).length, 10, 'reads work again once the disk does');
  });

  t.test('breaking out of a subscription loop releases it', async (t) => {
    const { file } = await fixture(await tempDir(t), lines.slice(0, 10));
    const j = await openLog(t, file);
    const sub = j.subscribe(0);
    for await (const e of sub) if (e.seq === 3) break;
    t.equal(j.liveResources(), 0);
    await sub.close();
  });

  t.test('NaN seq bounds are ignored, as no seq compares with them', async (t) => {
    const { file } = await fixture(await tempDir(t), lines.slice(0, 3));
    const j = await openLog(t, file);
    t.equal((await j.list({ afterSeq: NaN, beforeSeq: NaN })).length, 3);
    const sub = j.subscribe(NaN);
    t.teardown(() => sub.close());
    t.equal((await take(sub, 3)).length, 3);
  });

  t.test('the line readers split any range at any chunk size, both ways', async (t) => {
    // Lines from empty to several chunks long, multi-byte characters included, at every chunk boundary.
    const texts = Array.from({ length: 60 }, (_, i) => 'é'.repeat((i * 7) % 23) + 'x'.repeat(i % 5));
    const { handle, offsets, ends } = await linesFile(t, texts);
    for (const chunk of [1, 2, 3, 5, 16, 64]) {
      for (const [from, to] of [
        [0, 60],
        [7, 8],
        [13, 41],
        [59, 60],
      ] as const) {
        const want = texts
          .slice(from, to)
          .map((text, i) => ({ offset: offsets[from + i], end: ends[from + i], text }));
        const forward = await collect(readForward(handle, offsets[from]!, ends[to - 1]!, chunk));
        const growing = await collect(readForward(handle, offsets[from]!, ends[to - 1]!, chunk, chunk * 8));
        const ahead = await collect(
          readForward(handle, offsets[from]!, ends[to - 1]!, chunk, chunk * 2, true),
        );
        const backward = await collect(readBackward(handle, offsets[from]!, ends[to - 1]!, chunk));
        t.same(forward, want, `forward ${from}..${to} in chunks of ${chunk}`);
        t.same(growing, want, `forward ${from}..${to} in chunks growing from ${chunk}`);
        t.same(ahead, want, `forward ${from}..${to} reading ahead from ${chunk}`);
        t.same(backward, want.reverse(), `backward ${from}..${to} in chunks of ${chunk}`);
      }
    }
  });

  t.test(
    'the needle readers find exactly the lines holding the needle, both ways, at any chunk size',
    async (t) => {
      // Lines from empty to several chunks long, multi-byte characters included; every third holds the
      // needle, at its start, middle or end, and one holds it twice.
      const texts = Array.from({ length: 60 }, (_, i) => {
        const body = 'é'.repeat((i * 7) % 23) + 'x'.repeat(i % 5);
        if (i % 3 !== 0) return body;
        return [`"type":"a.${i}`, `${body}"type":"a.${i}`, `"type":"a.${i}${body}`][
          i % 9 === 0 ? 0 : i % 2 ? 1 : 2
        ]!;
      });
      texts[30] = `"type":"a.x"type":"a.y`;
      const { handle, offsets, ends } = await linesFile(t, texts);
      const needle = Buffer.from('"type":"a.');
      const parse = (buf: Buffer, start: number, end: number, offset: number) => ({
        offset,
        text: buf.toString('utf8', start, end),
      });
      for (const chunk of [1, 2, 3, 5, 16, 64, CHUNK_BYTES]) {
        for (const [from, to] of [
          [0, 60],
          [7, 8],
          [13, 41],
          [30, 31],
          [59, 60],
        ] as const) {
          const want = texts
            .slice(from, to)
            .map((text, i) => ({ offset: offsets[from + i]!, text }))
            .filter((line) => line.text.includes('"type":"a.'));
          const range = [offsets[from]!, ends[to - 1]!] as const;
          const forward = await collect(
            readForwardMatching(handle, ...range, needle, parse, Infinity, chunk),
          );
          const backward = await collect(
            readBackwardMatching(handle, ...range, needle, parse, Infinity, chunk),
          );
          t.same(forward, want, `forward ${from}..${to} in chunks of ${chunk}`);
          t.same(backward, [...want].reverse(), `backward ${from}..${to} in chunks of ${chunk}`);
          if (want.length > 1) {
            const first = await collect(readForwardMatching(handle, ...range, needle, parse, 1, chunk));
            const last = await collect(readBackwardMatching(handle, ...range, needle, parse, 1, chunk));
            t.same([first, last], [[want[0]], [want[want.length - 1]]], `limit 1, ${from}..${to}, ${chunk}`);
          }
        }
      }
    },
  );

  t.test('a needle read of a range that is not whole lines ends instead of looping', async (t) => {
    // A range ends at a line end unless the file changed under the read; then the read gives up.
    const file = join(await tempDir(t), 'torn.jsonl');
    await writeFile(file, `{"type":"a.1"}\n${'x'.repeat(100)}"type":"a.2`);
    const handle = await open(file, 'r');
    t.teardown(() => handle.close());
    const size = (await readFile(file)).length;
    const needle = Buffer.from('"type":"a.');
    const parse = (buf: Buffer, start: number, end: number) => buf.toString('utf8', start, end);
    for (const chunk of [1, 4, 64, CHUNK_BYTES]) {
      const forward = await collect(readForwardMatching(handle, 15, size, needle, parse, Infinity, chunk));
      const backward = await collect(readBackwardMatching(handle, 0, size, needle, parse, Infinity, chunk));
      t.same(forward, [], `forward, chunks of ${chunk}`);
      t.same(backward, [], `backward, chunks of ${chunk}`);
    }
  });

  t.test('a waiting subscriber holds no timer and is woken by an append', async (t) => {
    const j = await openLog(t, join(await tempDir(t), 'events.jsonl'));
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const baseline = timers();
    const sub = j.subscribe(0);
    const it = sub[Symbol.asyncIterator]();
    const next = it.next();
    await new Promise((r) => setImmediate(r));
    t.equal(j.liveResources(), 2, 'one subscription, one waiter');
    t.equal(timers(), baseline, 'no timer is armed while waiting');
    await j.append(draft('wake'));
    t.match(await next, { done: false, value: { seq: 1, type: 'wake' } });
    await sub.close();
    t.equal(j.liveResources(), 0);
  });
});

t.test('recovery on open', async (t) => {
  t.test(
    'a torn last line without a newline is truncated, with one warning through the logger',
    async (t) => {
      const good = [line(1), line(2), line(3)];
      const { file } = await fixture(await tempDir(t), [...good, '{"seq":4,"type":"fixture","ts":"2025-']);
      const { logger, records } = recordingLogger();
      const j = await openLog(t, file, { warn: undefined, logger });
      t.equal(records.length, 1, 'one warning');
      t.match(records[0], { level: 40, msg: /torn last line at byte offset \d+/ });
      t.match(records[0]!.msg, file);
      t.equal(await readFile(file, 'utf8'), good.join(''), 'cut back to the last whole line');
      t.equal(await j.head(), 3);
      t.equal((await j.append(draft('next'))).seq, 4);
      t.same(
        (await j.list()).map((e) => e.seq),
        [1, 2, 3, 4],
      );
    },
  );

  t.test('an unparsable last line is truncated', async (t) => {
    const good = [line(1), line(2)];
    const { file } = await fixture(await tempDir(t), [...good, '{"seq":3,"type":"fix\0\0\0\n']);
    const warnings: string[] = [];
    const j = await openLog(t, file, { warn: (m) => warnings.push(m) });
    t.equal(warnings.length, 1);
    t.equal(await readFile(file, 'utf8'), good.join(''));
    t.equal((await j.append(draft('next'))).seq, 3);
  });

  t.test('a corrupt line in the middle is reported, skipped and never renumbered', async (t) => {
    const lines = [line(1), line(2), '{"seq":3,"ty garbage\n', line(4), line(5)];
    const { file, offsets } = await fixture(await tempDir(t), lines);
    const warnings: string[] = [];
    const j = await openLog(t, file, { warn: (m) => warnings.push(m) });
    t.equal(warnings.length, 1, 'one warning');
    t.match(warnings[0], file);
    t.match(warnings[0], `line 3 at byte offset ${offsets[2]}`);
    t.equal(await j.head(), 5, 'the head is the max seq stored');
    t.equal((await j.append(draft('next'))).seq, 6, 'appends continue after it');
    t.same(
      (await j.list()).map((e) => e.seq),
      [1, 2, 4, 5, 6],
    );
    t.same(
      (await j.list({ order: 'desc' })).map((e) => e.seq),
      [6, 5, 4, 2, 1],
    );
    t.same(
      (await j.list({ afterSeq: 2 })).map((e) => e.seq),
      [4, 5, 6],
    );
    t.same(
      (await j.list({ afterSeq: 2, beforeSeq: 4 })).map((e) => e.seq),
      [],
    );
    const sub = j.subscribe(0);
    t.teardown(() => sub.close());
    t.same(
      (await take(sub, 5)).map((e) => e.seq),
      [1, 2, 4, 5, 6],
    );
    t.match(await readFile(file, 'utf8'), 'garbage', 'the corrupt line stays in the file');
  });

  t.test('a stray copy of an earlier seq is skipped', async (t) => {
    const { file } = await fixture(await tempDir(t), [line(1), line(2), line(2, { type: 'copy' }), line(4)]);
    const warnings: string[] = [];
    const j = await openLog(t, file, { warn: (m) => warnings.push(m) });
    t.equal(warnings.length, 1);
    t.same(
      (await j.list()).map((e) => [e.seq, e.type]),
      [
        [1, 'fixture'],
        [2, 'fixture'],
        [4, 'fixture'],
      ],
    );
  });

  t.test('a badly mangled file reports ten corrupt lines and a count', async (t) => {
    const lines = [line(1), ...Array.from({ length: 25 }, () => 'junk\n'), line(27)];
    const { file } = await fixture(await tempDir(t), lines);
    const warnings: string[] = [];
    const j = await openLog(t, file, { warn: (m) => warnings.push(m) });
    t.equal(warnings.length, 11);
    t.match(warnings[10], 'skipped 15 more corrupt lines');
    t.same(
      (await j.list()).map((e) => e.seq),
      [1, 27],
    );
  });
});

t.test('events acknowledged before a SIGKILL survive it', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'events.jsonl');
  const script = join(dir, 'writer.mts');
  const module = fileURLToPath(new URL('../actors/runtime/journal/fileJournal.ts', import.meta.url));
  await writeFile(
    script,
    `import { FileJournalBackend } from ${JSON.stringify(module)};
const j = await new FileJournalBackend().open({ name: 'c', file: ${JSON.stringify(file)} });
for (;;) {
  const stored = await Promise.all(Array.from({ length: 500 }, () => j.append({ type: 'a', actor: 'w' })));
  process.stdout.write(stored.at(-1).seq + '\\n');
}
`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acknowledged = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.on('error', reject);
    child.stdout.on('data', (chunk: Buffer) => {
      out += String(chunk);
      const acks = out.split('\n').filter(Boolean);
      // Killed while it keeps appending, so a batch may be half written.
      if (acks.length >= 5) {
        child.kill('SIGKILL');
        resolve(Number(acks.at(-1)));
      }
    });
  });
  await new Promise((r) => child.on('exit', r));
  const j = await openLog(t, file);
  const head = await j.head();
  t.ok(head >= acknowledged, `head ${head} ≥ last acknowledged seq ${acknowledged}`);
  const listed = await j.list();
  t.same(
    listed.map((e) => e.seq),
    Array.from({ length: head }, (_, i) => i + 1),
    'every stored line is whole and seqs are gap-free',
  );
  t.equal((await j.append(draft('after'))).seq, head + 1);
});
