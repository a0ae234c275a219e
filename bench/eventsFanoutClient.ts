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
import { get, Agent } from 'node:http';
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

const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
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

function open(i: number): void {
  const req = get(url!, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) {
      send({ error: `client ${i}: status ${res.statusCode}` });
      return;
    }
    if (++opened === clients) send({ ready: clients });
    // Raw bytes, no string decoding: these processes parse up to hundreds of thousands of frames/s beside
    // the server on a shared CPU, and must not become what the figures measure.
    const timed = i % SAMPLE_EVERY === 0;
    let tail: Buffer | undefined;
    res.on('data', (chunk: Buffer) => {
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
      tail = pos < buf.length ? buf.subarray(pos) : undefined;
      if (got === 0) return;
      total += got;
      lastAt = now();
      const before = counts[i]!;
      counts[i] = before + got;
      if (before < expected && before + got >= expected && ++complete === clients) finish();
    });
  });
  req.on('error', (err) => {
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
