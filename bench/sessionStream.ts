/**
 * Session stream and transcript figures. (1) An agent writes a reply to its Claude log → the frame is handed
 * to the session stream's sink: p50/p99 over 200 replies, beside the floor of a bare `fs.watch` callback on
 * the same append. (2) The first transcript page (500 messages) of a 50 MB Claude log: time and memory
 * growth, beside the floor of reading the last 1 MiB of the file, and the cost of reading the file whole.
 * Prints one JSON line.
 */
import {
  appendFileSync,
  mkdtempSync,
  rmSync,
  watch,
  writeFileSync,
  openSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { readFile, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStream, type StreamFrame } from '../actors/sessions/sessionStream.ts';
import { readClaudePage } from '../actors/sessions/transcript/claudeReader.ts';
import type { SessionTranscripts } from '../actors/sessions/transcript/sessionTranscripts.ts';
import type { SessionRecord } from '../machines/sessions/sessionRecord.ts';
import { round, summary } from './sessionsKit.ts';

const REPLIES = 200;
const BIG_BYTES = 50 * 1024 * 1024;

function fig(name: string, value: number, unit: string, floor?: [number, string], target?: string): object {
  return {
    name,
    value: round(value),
    unit,
    ...(floor ? { floor: round(floor[0]), floor_name: floor[1] } : {}),
    ...(target ? { target } : {}),
  };
}

let seq = 0;
function claudeLine(text: string, parent: string | null, pad = ''): { uuid: string; line: string } {
  const uuid = `b-${++seq}`;
  const type = seq % 2 === 0 ? 'assistant' : 'user';
  const message =
    type === 'assistant'
      ? { role: type, content: [{ type: 'text', text: text + pad }], stop_reason: 'end_turn' }
      : { role: type, content: text + pad };
  return {
    uuid,
    line:
      JSON.stringify({ type, uuid, parentUuid: parent, timestamp: new Date().toISOString(), message }) + '\n',
  };
}

const until = async (cond: () => boolean, ms = 5000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setImmediate(r));
  }
};

async function replyToFrame(dir: string): Promise<{ stream: number[]; floor: number[] }> {
  const path = join(dir, 'live.jsonl');
  let last = claudeLine('hello', null);
  writeFileSync(path, last.line);
  const session = {
    id: 'gc-1',
    template: 'mock',
    provider: 'mock',
    sessionName: 's',
    closed: false,
  } as SessionRecord;
  const transcripts = {
    locate: () => Promise.resolve({ path, family: 'claude' }),
    service: {
      runtime: { peek: () => Promise.resolve('') },
      book: { find: () => session },
    },
  } as unknown as SessionTranscripts;
  const frames: Array<{ at: number; frame: StreamFrame }> = [];
  const sink = {
    send: (frame: StreamFrame) => frames.push({ at: performance.now(), frame }),
    ready: () => Promise.resolve(),
    closed: false,
  };
  const stream = new SessionStream(transcripts, session, 'conversation', sink, { pendingPollMs: 60_000 });
  const running = stream.run();
  await until(() => frames.some((f) => f.frame.event === 'turn') && stream.mode === 'watch');
  if (stream.mode !== 'watch') throw new Error(`the stream follows the log by ${stream.mode}, not a watch`);
  const lat: number[] = [];
  for (let i = 0; i < REPLIES; i++) {
    const before = frames.length;
    last = claudeLine(`reply ${i}`, last.uuid);
    const t0 = performance.now();
    appendFileSync(path, last.line);
    await until(() => frames.slice(before).some((f) => f.frame.event === 'turn'));
    lat.push(frames.slice(before).find((f) => f.frame.event === 'turn')!.at - t0);
  }
  stream.close();
  await running;

  // Floor: a bare folder watch woken by the same append.
  const floor: number[] = [];
  let woke = 0;
  const w = watch(dir, { persistent: false }, () => (woke = performance.now()));
  for (let i = 0; i < REPLIES; i++) {
    woke = 0;
    const t0 = performance.now();
    appendFileSync(path, claudeLine(`floor ${i}`, null).line);
    await until(() => woke !== 0);
    floor.push(woke - t0);
    await new Promise((r) => setTimeout(r, 2));
  }
  w.close();
  return { stream: lat, floor };
}

function writeBigLog(path: string): void {
  const fd = openSync(path, 'w');
  let written = 0;
  let parent: string | null = null;
  const pad = ' lorem ipsum dolor sit amet'.repeat(180); // ~5 KB entries
  let buf = '';
  while (written < BIG_BYTES) {
    const { uuid, line } = claudeLine('message', parent, pad);
    parent = uuid;
    buf += line;
    written += Buffer.byteLength(line);
    if (buf.length > 1 << 20) {
      writeSync(fd, buf);
      buf = '';
    }
  }
  writeSync(fd, buf);
  closeSync(fd);
}

async function firstPage(dir: string) {
  const path = join(dir, 'big.jsonl');
  writeBigLog(path);
  const runs: number[] = [];
  const heap: number[] = [];
  let returned = 0;
  for (let i = 0; i < 20; i++) {
    global.gc?.();
    const h0 = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const { page } = await readClaudePage(path, { format: 'conversation', tail: 0, limit: 500 });
    runs.push(performance.now() - t0);
    heap.push((process.memoryUsage().heapUsed - h0) / (1024 * 1024));
    returned = page.entries.length;
  }
  const floor: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const fh = await open(path, 'r');
    const { size } = await fh.stat();
    const b = Buffer.alloc(1 << 20);
    await fh.read(b, 0, b.length, size - b.length);
    await fh.close();
    floor.push(performance.now() - t0);
  }
  const t0 = performance.now();
  const whole = (await readFile(path, 'utf8')).length;
  const wholeMs = performance.now() - t0;
  return { runs, heap, floor, returned, wholeMs, wholeChars: whole };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-stream-'));
  try {
    const live = await replyToFrame(dir);
    const s = summary(live.stream);
    const f = summary(live.floor);
    const page = await firstPage(dir);
    const p = summary(page.runs);
    const pf = summary(page.floor);
    const heap = summary(page.heap);
    const out = {
      scenario: 'sessionStream',
      reply_to_frame_ms: s,
      watch_floor_ms: f,
      first_page_ms: p,
      first_page_heap_growth_mib: heap,
      first_page_messages: page.returned,
      last_chunk_read_floor_ms: pf,
      whole_file_read_ms: round(page.wholeMs),
      figures: [
        fig(
          'agent writes a reply → turn frame on the session stream, p50',
          s.p50,
          'ms',
          [f.p50, 'bare fs.watch wake, p50'],
          '≤ 50 ms',
        ),
        fig(
          'agent writes a reply → turn frame on the session stream, p99',
          s.p99,
          'ms',
          [f.p99, 'bare fs.watch wake, p99'],
          '≤ 250 ms',
        ),
        fig(
          'transcript first page (500 messages) of a 50 MB Claude log, p50',
          p.p50,
          'ms',
          [pf.p50, 'read the last 1 MiB, p50'],
          '≤ 100 ms',
        ),
        fig(
          'transcript first page of a 50 MB Claude log, p99',
          p.p99,
          'ms',
          [pf.p99, 'read the last 1 MiB, p99'],
          '≤ 100 ms',
        ),
        fig('transcript first page: heap growth, max', heap.max, 'MiB', [
          page.wholeMs,
          'ms to read the 50 MB file whole (not done)',
        ]),
      ],
      targets: {
        reply_p50_le_50ms: s.p50 <= 50,
        reply_p99_le_250ms: s.p99 <= 250,
        first_page_p99_le_100ms: p.p99 <= 100,
        first_page_heap_le_16mib: heap.max <= 16,
      },
    };
    process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
