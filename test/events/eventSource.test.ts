import { EventSource } from 'eventsource';
import t from 'tap';
import { eventsServer, until } from '../helpers/eventsServer.ts';

/**
 * A browser-style client (the `eventsource` package, which follows the WHATWG EventSource rules) resumes
 * on its own after the server ends the stream: it reconnects with the last `id:` as Last-Event-ID and gets
 * exactly the events it had not seen. Heartbeats (no `id:`) never move its resume point.
 */

for (const scope of ['city', 'supervisor'] as const) {
  t.test(`${scope} stream: an EventSource resumes by itself after a server-side disconnect`, async (t) => {
    const srv = await eventsServer(t, { heartbeatMs: 100 });
    const alpha = srv.addCity('alpha');
    const url = scope === 'city' ? `${srv.base}/v0/city/alpha/events/stream` : `${srv.base}/v0/events/stream`;
    const es = new EventSource(url);
    t.teardown(() => es.close());
    const seqs: number[] = [];
    let opens = 0;
    let heartbeats = 0;
    es.addEventListener('open', () => opens++);
    es.addEventListener('heartbeat', () => heartbeats++);
    es.addEventListener(scope === 'city' ? 'event' : 'tagged_event', (e) => {
      seqs.push((JSON.parse(e.data) as { seq: number }).seq);
    });
    await until(() => opens === 1 && srv.streams.size === 1, 5000, 'the first connection');
    for (let i = 0; i < 5; i++) await alpha.append({ type: 'x.tick', actor: 'a' });
    await until(() => seqs.length === 5 && heartbeats > 0, 5000, 'the first five events and a heartbeat');

    srv.streams.closeAll('ended');
    await until(() => srv.streams.size === 0, 2000, 'the server to end the stream');
    // Written while the client is away: it must get them after reconnecting by itself.
    for (let i = 0; i < 5; i++) await alpha.append({ type: 'x.tick', actor: 'a' });
    await until(() => opens === 2, 10_000, 'the automatic reconnect');
    await alpha.append({ type: 'x.tick', actor: 'a' });
    await until(() => seqs.length >= 11, 5000, 'the missed and the new events');
    t.same(seqs, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 'nothing missed, nothing twice');
  });
}
