/**
 * The subscriber side of the fan-out benchmark, run as a child process of `bench/events.ts` so the
 * supervisor's RSS and CPU are its own. Opens `clients` SSE connections to `url`, tells the parent
 * `{ready}` once every one has its 200, then counts every client's events and times those of every tenth
 * client (now − the send instant in the payload, both wall-clock) until every client has `events` events,
 * and sends `{result}`.
 *
 * Protocol (IPC): parent → `{start: events}`; child → `{ready: n}`, `{result: …}`, or `{error}`.
 */
import { get, Agent } from 'node:http';
import { performance } from 'node:perf_hooks';

const [url, clientsArg] = process.argv.slice(2);
const clients = Number(clientsArg);
const now = (): number => performance.timeOrigin + performance.now();
const send = (msg: unknown): void => void process.send?.(msg);

/** Clients that time their frames (every Nth); all of them count every frame. */
const SAMPLE_EVERY = 10;
const FRAME_END = Buffer.from('\n\n');
const T_FIELD = Buffer.from('"t":');
const ID_START = 'i'.charCodeAt(0);

const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
const counts = new Uint32Array(clients);
let latencies: Float64Array = new Float64Array(0);
let filled = 0;
let expected = Infinity;
let complete = 0;
let opened = 0;
let cpuAtStart = process.cpuUsage();
let startedAt = now();

function finish(): void {
  const sorted = latencies.subarray(0, filled).sort();
  const q = (p: number): number =>
    sorted[Math.min(filled - 1, Math.max(0, Math.ceil(p * filled) - 1))] ?? NaN;
  send({
    result: {
      clients,
      events_each: expected,
      received_min: Math.min(...counts),
      received_max: Math.max(...counts),
      all_received: counts.every((c) => c === expected),
      p50_ms: q(0.5),
      p99_ms: q(0.99),
      max_ms: sorted[filled - 1] ?? NaN,
      // Share of one core this subscriber process used while events flowed: near 100, it is the bottleneck.
      client_cpu_percent: Math.round(
        ((process.cpuUsage(cpuAtStart).user + process.cpuUsage(cpuAtStart).system) /
          1000 /
          (now() - startedAt)) *
          100,
      ),
    },
  });
}

function open(i: number): void {
  const req = get(url!, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) {
      send({ error: `client ${i}: status ${res.statusCode}` });
      return;
    }
    if (++opened === clients) send({ ready: clients });
    // Raw bytes, no string decoding: this process parses 100k frames/s beside the server on a shared CPU,
    // and must not become what the latency figure measures. Only a sample of clients time their frames.
    const timed = i % SAMPLE_EVERY === 0;
    let tail: Buffer | undefined;
    res.on('data', (chunk: Buffer) => {
      const buf = tail ? Buffer.concat([tail, chunk]) : chunk;
      let pos = 0;
      let end: number;
      while ((end = buf.indexOf(FRAME_END, pos)) >= 0) {
        if (buf[pos] === ID_START) {
          if (timed) {
            const at = buf.indexOf(T_FIELD, pos);
            if (at >= 0 && at < end)
              latencies[filled++] = now() - parseFloat(buf.toString('latin1', at + 4, end));
          }
          if (++counts[i]! === expected && ++complete === clients) finish();
        }
        pos = end + 2;
      }
      tail = pos < buf.length ? buf.subarray(pos) : undefined;
    });
  });
  req.on('error', (err) => send({ error: `client ${i}: ${err.message}` }));
}

process.on('message', (msg: { start?: number; stop?: boolean }) => {
  if (msg.start !== undefined) {
    cpuAtStart = process.cpuUsage();
    startedAt = now();
    expected = msg.start;
    latencies = new Float64Array(Math.ceil(clients / SAMPLE_EVERY) * expected);
  }
  if (msg.stop) {
    if (complete < clients) finish();
    process.exit(0);
  }
});

for (let i = 0; i < clients; i++) open(i);
