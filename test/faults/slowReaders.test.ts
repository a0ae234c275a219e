import { readFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import t from 'tap';
import { startSupervisorProcess, type SupervisorProcess } from '../helpers/supervisorProcess.ts';
import { Follower } from './follower.ts';
import { isGapFree, sleep } from './kit.ts';

/**
 * Fault: SSE readers that stop reading (stalled) or read at a trickle (slow), over real sockets, while a
 * real supervisor (a child process, file journal) streams large events to them and to healthy readers.
 * The supervisor's memory must stay bounded (its RSS, sampled from /proc, grows by far less than what the
 * stalled streams would hold if buffered), and the healthy readers must keep receiving every event, in
 * order, with low latency.
 */
const QUICK = process.env.GC_FAULT_FULL !== '1';
const STALLED = 24;
const SLOW = 6;
const HEALTHY = 3;
const EVENTS = QUICK ? 400 : 1500;
const EVENT_BYTES = 48 * 1024;

/** Opens a stream and returns its response without ever reading it (the kernel buffers fill, then the server's). */
function stalled(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream' } }, (res) => {
      res.pause();
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a stream read at about `bytesPerSecond` (one chunk, then a pause long enough for that rate). */
function slow(url: string, bytesPerSecond: number): Promise<IncomingMessage> {
  return stalled(url).then((res) => {
    res.on('data', (chunk: Buffer) => {
      res.pause();
      setTimeout(() => res.resume(), (chunk.length / bytesPerSecond) * 1000);
    });
    res.resume();
    return res;
  });
}

/**
 * True while the server's end of the connection from loopback `clientPort` to `serverPort` is still
 * established (state 01 in /proc/net/tcp): once the server closes it, its end moves on (FIN_WAIT1 while
 * the data it had sent waits behind the stalled reader), although from the client it still looks open.
 */
function serverEndOpen(serverPort: number, clientPort: number): boolean {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  const local = `:${hex(serverPort)}`;
  const remote = `:${hex(clientPort)}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .some(([, l, r, state]) => l?.endsWith(local) && r?.endsWith(remote) && state === '01');
}

/**
 * Reads a stalled stream on to its end and answers how many bytes it got, or undefined when it is still
 * open after `ms`. A reader the server cut sees the close only after reading what the kernel holds for it.
 */
function readToClose(res: IncomingMessage, ms: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    let bytes = 0;
    const timer = setTimeout(() => resolve(undefined), ms);
    // A cut mid-frame is an abort: expected here, not an error of the test.
    res.on('error', () => {});
    res.on('data', (chunk: Buffer) => (bytes += chunk.length));
    res.once('close', () => {
      clearTimeout(timer);
      resolve(bytes);
    });
    res.resume();
  });
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

t.test('stalled and slow SSE readers neither grow the server nor slow the other readers', async (t) => {
  const sup: SupervisorProcess = await startSupervisorProcess(t);
  t.comment(`supervisor child runs from ${sup.entry}`);
  const created = await sup.call('POST', '/v0/city', {
    dir: join(sup.cities, 'alpha'),
    start_command: 'true',
  });
  t.equal(created.status, 202, 'city accepted');
  const deadline = Date.now() + 20_000;
  while (!(await sup.call('GET', '/v0/cities')).body.items.some((c: { running: boolean }) => c.running)) {
    if (Date.now() > deadline) throw new Error('city did not start');
    await sleep(50);
  }
  const head = Number((await sup.call('GET', '/v0/city/alpha/events?limit=1')).headers.get('x-gc-index'));

  const cityUrl = `${sup.url}/v0/city/alpha/events/stream?after_seq=${head}`;
  const supUrl = `${sup.url}/v0/events/stream`;
  const healthy = Array.from(
    { length: HEALTHY },
    (_, i) =>
      new Follower(
        () => sup.url,
        i === 0 ? '/v0/events/stream' : `/v0/city/alpha/events/stream?after_seq=${head}`,
      ),
  );
  t.teardown(() => Promise.all(healthy.map((f) => f.close())));
  const idle = sup.rssBytes() ?? 0;
  const readers = [
    ...(await Promise.all(
      Array.from({ length: STALLED }, (_, i) => stalled(i % 3 === 0 ? supUrl : cityUrl)),
    )),
    ...(await Promise.all(
      Array.from({ length: SLOW }, (_, i) => slow(i % 2 ? supUrl : cityUrl, 256 * 1024)),
    )),
  ];
  t.teardown(() => readers.forEach((r) => r.destroy()));
  await sleep(300);
  const withReaders = sup.rssBytes() ?? 0;
  t.comment(
    `fault: ${STALLED} stalled and ${SLOW} slow readers (256 KiB/s) on the city and supervisor streams; ` +
      `${HEALTHY} healthy readers; RSS idle ${(idle / 2 ** 20).toFixed(1)} MiB, with readers ${(withReaders / 2 ** 20).toFixed(1)} MiB`,
  );

  let peak = withReaders;
  const sampler = setInterval(() => (peak = Math.max(peak, sup.rssBytes() ?? 0)), 50);
  t.teardown(() => clearInterval(sampler));
  const sentAt = new Map<string, number>();
  const pad = 'x'.repeat(EVENT_BYTES);
  const started = Date.now();
  for (let i = 0; i < EVENTS; i += 4) {
    await Promise.all(
      [i, i + 1, i + 2, i + 3].map(async (n) => {
        const message = `m${n}-${pad}`;
        const reply = await sup.call('POST', '/v0/city/alpha/events', {
          type: 'load.big',
          actor: 'fault',
          message,
        });
        if (reply.status !== 201) throw new Error(`emit ${n}: ${reply.status}`);
        sentAt.set(`m${n}`, Date.now());
      }),
    );
  }
  const volume = (EVENTS * EVENT_BYTES) / 2 ** 20;
  t.comment(
    `load: ${EVENTS} events of ${EVENT_BYTES / 1024} KiB (${volume.toFixed(1)} MiB per stream) in ${Date.now() - started} ms`,
  );

  const isLoad = (e: { type: string }): boolean => e.type === 'load.big';
  for (const f of healthy) {
    await f.until((got) => got.filter((r) => isLoad(r.event)).length >= EVENTS, 30_000, 'every load event');
  }
  clearInterval(sampler);
  const growth = peak - withReaders;
  // Buffered without bound, each stalled stream would hold the whole load: this is the bar to stay far below.
  const unbounded = STALLED * EVENTS * EVENT_BYTES;
  t.comment(
    `RSS peak ${(peak / 2 ** 20).toFixed(1)} MiB: +${(growth / 2 ** 20).toFixed(1)} MiB under load ` +
      `(unbounded buffering would need +${(unbounded / 2 ** 20).toFixed(0)} MiB)`,
  );
  t.ok(
    growth < unbounded / 4,
    'the server RSS grew by far less than the stalled streams would buffer unbounded',
  );
  t.ok(growth < 256 * 2 ** 20, 'and by less than 256 MiB in absolute terms');

  const latencies: number[] = [];
  for (const [i, f] of healthy.entries()) {
    const load = f.received.filter((r) => isLoad(r.event));
    const seqs = load.map((r) => r.event.seq);
    t.ok(isGapFree(seqs, seqs[0]), `healthy reader ${i + 1} got all ${load.length} events in order, no gap`);
    for (const r of load) {
      const sent = sentAt.get((r.event.message ?? '').split('-')[0]!);
      if (sent !== undefined) latencies.push(Math.max(0, r.at - sent));
    }
  }
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  t.comment(`healthy readers' latency (append acknowledged → frame received): p50 ${p50} ms, p99 ${p99} ms`);
  t.ok(p99 < 1000, 'healthy readers keep a low latency (p99 under 1 s) while the others stall');

  // A stalled reader is cut once a producer has waited on it for the stall timeout (30 s by default).
  const serverPort = Number(new URL(sup.url).port);
  const stalledPorts = readers.slice(0, STALLED).map((r) => r.socket.localPort!);
  const stillOpen = () => stalledPorts.filter((port) => serverEndOpen(serverPort, port));
  for (const cutBy = Date.now() + 60_000; stillOpen().length > 0 && Date.now() < cutBy;) await sleep(100);
  t.same(stillOpen(), [], `the server closed every stalled reader's connection (client ports listed if not)`);
  const got = await Promise.all(readers.slice(0, STALLED).map((r) => readToClose(r, 30_000)));
  const whole = EVENTS * EVENT_BYTES;
  t.same(
    got.flatMap((bytes, i) =>
      bytes !== undefined && bytes < whole ? [] : [`reader ${i}: ${bytes ?? 'still open'}`],
    ),
    [],
    'each stalled reader, read on, ends before the whole load: it was cut (and resumes from Last-Event-ID)',
  );
  const after = await sup.call('GET', '/health');
  t.equal(after.status, 200, 'the supervisor still answers');
});
