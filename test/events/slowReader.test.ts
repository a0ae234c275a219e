import { request, type IncomingMessage } from 'node:http';
import t from 'tap';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { eventsServer, until } from '../helpers/eventsServer.ts';
import { openSse } from '../helpers/sse.ts';

const FRAME_BYTES = 16 * 1024;
const EVENTS = 1500; // ~24 MiB in all: far more than the kernel buffers of one loopback connection

t.test('a stalled reader is disconnected with bounded buffering; others get every event', async (t) => {
  const srv = await eventsServer(t);
  const limits = { highWaterBytes: 64 * 1024, maxBufferedBytes: 1024 * 1024, stallTimeoutMs: 300 };
  srv.streams.limits = limits;
  const alpha = srv.addCity('alpha', new MemoryJournal('alpha'));

  // The slow client: takes the headers, then never reads again.
  const slow = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(`${srv.base}/v0/city/alpha/events/stream?after_seq=0`, (res) => {
      res.pause();
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
  t.teardown(() => slow.destroy());
  await until(() => srv.streams.size === 1, 2000, 'the slow stream');
  const slowWriter = srv.streams.writers()[0]!;
  const healthy = await openSse(`${srv.base}/v0/city/alpha/events/stream?after_seq=0`);

  let maxBuffered = 0;
  const sampler = setInterval(() => (maxBuffered = Math.max(maxBuffered, slowWriter.bufferedBytes)), 2);
  t.teardown(() => clearInterval(sampler));
  const big = 'x'.repeat(FRAME_BYTES);
  for (let i = 1; i <= EVENTS; i++) {
    await alpha.append({ type: 'big.event', actor: 'load', message: big });
    if (i % 50 === 0) await new Promise((r) => setImmediate(r));
  }

  const seqs: number[] = [];
  while (seqs.length < EVENTS) seqs.push(JSON.parse((await healthy.nextEvent(10_000)).data).seq);
  t.ok(
    seqs.every((s, i) => s === i + 1),
    'the healthy reader got every event, in order',
  );
  await until(() => slowWriter.closed, 10_000, 'the slow reader to be disconnected');
  clearInterval(sampler);
  t.equal(slowWriter.closeReason, 'slow_reader');
  t.ok(
    maxBuffered <= limits.maxBufferedBytes + FRAME_BYTES + 1024,
    `server-side buffering stayed bounded (max ${maxBuffered} bytes)`,
  );
  t.equal(srv.streams.size, 1, 'only the healthy stream is left');

  // The dropped reader drains what reached it, then sees its connection end: it resumes from its last id.
  let tail = '';
  slow.setEncoding('utf8');
  slow.on('data', (chunk: string) => (tail += chunk));
  slow.resume();
  await new Promise<void>((resolve) => slow.once('close', () => resolve()));
  const ids = [...tail.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  t.ok(ids.length < EVENTS, `it had received only ${ids.length} of ${EVENTS} events`);
  healthy.close();
});
