/**
 * The subscriber side of the fan-out benchmark, run as child processes of `bench/events.ts` (several for
 * a large count, so no one process's CPU or descriptors bound the figure, and the server's RSS and CPU are
 * its own). Opens `clients` SSE connections to `url`, tells the parent `{ready}` once every one has its
 * 200, then counts every client's event frames and times those of every tenth client (now − the send
 * instant in the payload's `"t":`, both wall-clock) until every client has `events` events, or the parent
 * says stop, and sends `{result}`.
 *
 * Protocol (IPC): parent → `{start: events}`, `{stop: true}`; child → `{ready: n}`, `{result: …}`, or
 * `{error}`. Exits when the parent disconnects.
 */
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

const [url, clientsArg] = process.argv.slice(2);
const clients = Number(clientsArg);
const now = (): number => performance.timeOrigin + performance.now();
const send = (msg: unknown): void => void process.send?.(msg);

/** Clients that time their frames (every Nth); all of them count every frame. */
const SAMPLE_EVERY = 10;
/** Latency samples kept at most (the rest are counted, not timed): bounds memory and the IPC message. */
const MAX_SAMPLES = 200_000;
const FRAME_END = Buffer.from('\n\n');
const T_FIELD = Buffer.from('"t":');
const ID_START = 'i'.charCodeAt(0);

/** What one subscriber process saw; `events.ts` merges the results of all of them. */
export interface FanoutClientResult {
  clients: number;
  events_each: number;
  received_min: number;
  received_max: number;
  /** Event frames received by all clients together. */
  received_total: number;
  all_received: boolean;
  /** Wall-clock instant (ms since the epoch) of the last event frame any client received. */
  last_at: number;
  /** Sampled latencies (ms), unsorted. */
  latencies: number[];
  /** Share of one core this process used while events flowed: near 100, it is a bottleneck. */
  client_cpu_percent: number;
}

const counts = new Uint32Array(clients);
let latencies: Float64Array = new Float64Array(0);
let filled = 0;
let expected = Infinity;
let complete = 0;
let opened = 0;
let total = 0;
let lastAt = 0;
let cpuAtStart = process.cpuUsage();
let startedAt = now();
let finished = false;

function finish(): void {
  if (finished) return;
  finished = true;
  const cpu = process.cpuUsage(cpuAtStart);
  let min = Infinity;
  let max = 0;
  for (const c of counts) {
    if (c < min) min = c;
    if (c > max) max = c;
  }
  const result: FanoutClientResult = {
    clients,
    events_each: expected,
    received_min: min,
    received_max: max,
    received_total: total,
    all_received: min === expected,
    last_at: lastAt,
    latencies: Array.from(latencies.subarray(0, filled)),
    client_cpu_percent: Math.round(((cpu.user + cpu.system) / 1000 / (now() - startedAt)) * 100),
  };
  send({ result });
}

/**
 * Undoes HTTP/1.1 chunked framing: `push` takes the body's bytes as they come off the socket and hands each
 * run of chunk data to `onData` (a view, no copy) as soon as it is there; a frame split across chunks or
 * reads is joined by the frame scanner behind it.
 */
class Dechunker {
  /** Data bytes of the current chunk still to come. */
  #left = 0;
  /** The chunk size read so far from its size line. */
  #size = 0;
  /** Still in the size line's hex digits (not in an extension after them). */
  #inSizeLine = true;
  /** The last chunk (size 0) came: the body is over. */
  #ended = false;
  /** Bytes of the CRLF after a chunk's data still to skip. */
  #skip = 0;

  constructor(private readonly onData: (data: Buffer) => void) {}

  push(buf: Buffer): void {
    let pos = 0;
    while (pos < buf.length && !this.#ended) {
      if (this.#skip > 0) {
        const n = Math.min(this.#skip, buf.length - pos);
        this.#skip -= n;
        pos += n;
      } else if (this.#left > 0) {
        const end = Math.min(buf.length, pos + this.#left);
        this.onData(buf.subarray(pos, end));
        this.#left -= end - pos;
        pos = end;
        if (this.#left === 0) this.#skip = 2;
      } else {
        // The size line: hex digits, maybe an extension after ';', then CRLF.
        const c = buf[pos++]!;
        if (c === 0x0a) {
          this.#left = this.#size;
          this.#size = 0;
          this.#inSizeLine = true;
          this.#ended = this.#left === 0;
        } else if (this.#inSizeLine) {
          const digit = c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57;
          if (digit >= 0 && digit < 16) this.#size = this.#size * 16 + digit;
          else this.#inSizeLine = false;
        }
      }
    }
  }
}

/**
 * One subscriber on a plain socket: a GET written by hand, the head checked for a 200, then the chunked
 * body read as raw bytes. Not node:http's client: its parser, stream and event per chunk cost these
 * processes about twice the CPU per frame, and they share the two cores with the server they measure, so
 * their own backlog showed up in its latency.
 */
function open(i: number): void {
  const { hostname, port, pathname, search } = new URL(url!);
  const socket: Socket = connect({ host: hostname, port: Number(port), noDelay: true });
  socket.write(
    `GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  const timed = i % SAMPLE_EVERY === 0;
  let head: Buffer | undefined = Buffer.alloc(0);
  let tail: Buffer | undefined;
  const frames = (chunk: Buffer): void => {
    const buf = tail ? Buffer.concat([tail, chunk]) : chunk;
    let pos = 0;
    let end: number;
    let got = 0;
    while ((end = buf.indexOf(FRAME_END, pos)) >= 0) {
      if (buf[pos] === ID_START) {
        got++;
        if (timed && filled < latencies.length) {
          const at = buf.indexOf(T_FIELD, pos);
          if (at >= 0 && at < end)
            latencies[filled++] = now() - parseFloat(buf.toString('latin1', at + 4, end));
        }
      }
      pos = end + 2;
    }
    // A view into a socket chunk is copied, so the chunk it came from is not kept alive with it.
    tail = pos < buf.length ? Buffer.from(buf.subarray(pos)) : undefined;
    if (got === 0) return;
    total += got;
    lastAt = now();
    const before = counts[i]!;
    counts[i] = before + got;
    if (before < expected && before + got >= expected && ++complete === clients) finish();
  };
  const body = new Dechunker(frames);
  socket.on('data', (chunk: Buffer) => {
    if (head === undefined) return body.push(chunk);
    head = Buffer.concat([head, chunk]);
    const endOfHead = head.indexOf('\r\n\r\n');
    if (endOfHead < 0) return;
    const text = head.toString('latin1', 0, endOfHead);
    const rest = head.subarray(endOfHead + 4);
    head = undefined;
    if (!text.startsWith('HTTP/1.1 200')) {
      send({ error: `client ${i}: ${text.split('\r\n')[0]}` });
      return;
    }
    if (!/^transfer-encoding: *chunked$/im.test(text)) {
      send({ error: `client ${i}: the stream is not chunked` });
      return;
    }
    if (++opened === clients) send({ ready: clients });
    if (rest.length > 0) body.push(rest);
  });
  socket.on('error', (err) => {
    if (!finished) send({ error: `client ${i}: ${err.message}` });
  });
}

process.on('message', (msg: { start?: number; stop?: boolean }) => {
  if (msg.start !== undefined) {
    cpuAtStart = process.cpuUsage();
    startedAt = now();
    expected = msg.start;
    const timedClients = Math.ceil(clients / SAMPLE_EVERY);
    latencies = new Float64Array(Math.min(MAX_SAMPLES, timedClients * expected));
    if (expected === 0) finish();
  }
  if (msg.stop) finish();
});
process.on('disconnect', () => process.exit(0));

for (let i = 0; i < clients; i++) open(i);
