import t from 'tap';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { eventsServer, until } from '../helpers/eventsServer.ts';
import { CountingJournal } from '../helpers/journals.ts';
import { openSse, type SseClient } from '../helpers/sse.ts';

// The live fan-out of city streams (actors/runtime/feed/liveFanout.ts, http/sse/cityStream.ts): many streams of
// one log share one subscription and one encoding per batch, yet each gets exactly its own frames.

const tick = (i: number) => ({ type: 'test.tick', actor: 'tester', subject: `s${i}`, payload: { i } });
/** A payload-carrying internal type on a city log: served only with include=internal. */
const internal = { type: 'request.accepted', actor: 'supervisor', payload: { request_id: 'r' } };

async function seqsOf(sse: SseClient, count: number): Promise<number[]> {
  const seqs: number[] = [];
  while (seqs.length < count) {
    const frame = await sse.nextEvent(10_000);
    t.equal(frame.raw, `id: ${frame.id}\nevent: event\ndata: ${frame.data}\n\n`, 'exact layout');
    seqs.push(JSON.parse(frame.data).seq);
  }
  return seqs;
}

const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

t.test(
  'live streams and resumed ones get every event once, in order, through one subscription',
  async (t) => {
    const srv = await eventsServer(t);
    const journal = new CountingJournal(new MemoryJournal('alpha'));
    for (let i = 1; i <= 20; i++) await journal.append(tick(i));
    srv.addCity('alpha', journal);
    const live = await Promise.all(
      Array.from({ length: 30 }, () => openSse(`${srv.base}/v0/city/alpha/events/stream`)),
    );
    await until(() => srv.streams.size === 30, 5000, 'the live streams');
    t.equal(journal.open, 1, 'thirty live streams hold one subscription');

    // Bursts (several events in one turn: one batch) while streams resume from behind and join.
    const appendBurst = (from: number, n: number) =>
      Promise.all(range(from, from + n - 1).map((i) => journal.append(tick(i))));
    await appendBurst(21, 10);
    const resumed = await openSse(`${srv.base}/v0/city/alpha/events/stream`, { 'last-event-id': '5' });
    await appendBurst(31, 10);
    const late = await openSse(`${srv.base}/v0/city/alpha/events/stream?after_seq=35`);
    await appendBurst(41, 10);

    for (const sse of live) t.same(await seqsOf(sse, 30), range(21, 50));
    t.same(await seqsOf(resumed, 45), range(6, 50), 'the resumed stream caught up and joined');
    t.same(await seqsOf(late, 15), range(36, 50), 'a stream ahead of the fan-out gets only what follows');
    await journal.append(tick(51));
    for (const sse of [...live, resumed, late]) t.same(await seqsOf(sse, 1), [51]);
    t.equal(journal.open, 1, 'the resumed streams rejoined the one subscription');

    for (const sse of [...live, resumed, late]) sse.close();
    await until(() => srv.streams.size === 0 && journal.open === 0, 5000, 'everything released');
  },
);

t.test('streams with and without include=internal each see their own events', async (t) => {
  const srv = await eventsServer(t);
  const journal = srv.addCity('alpha');
  const served = await openSse(`${srv.base}/v0/city/alpha/events/stream`);
  const all = await openSse(`${srv.base}/v0/city/alpha/events/stream?include=internal`);
  await until(() => srv.streams.size === 2, 5000, 'both streams');
  await Promise.all([journal.append(tick(1)), journal.append(internal), journal.append(tick(3))]);
  await journal.append(tick(4));
  t.same(await seqsOf(served, 3), [1, 3, 4], 'the internal event is not served, and its id is skipped');
  t.same(await seqsOf(all, 4), [1, 2, 3, 4]);
  served.close();
  all.close();
});

t.test('the log ending ends every stream of the fan-out', async (t) => {
  const srv = await eventsServer(t);
  const journal = srv.addCity('alpha');
  const streams = await Promise.all([1, 2, 3].map(() => openSse(`${srv.base}/v0/city/alpha/events/stream`)));
  await until(() => srv.streams.size === 3, 5000, 'the streams');
  await journal.append(tick(1));
  for (const sse of streams) t.same(await seqsOf(sse, 1), [1]);
  await journal.close();
  await until(() => srv.streams.size === 0, 5000, 'the streams to end');
  for (const sse of streams) sse.close();
});
