import t from 'tap';
import { openSse } from '../helpers/sse.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcpProxy.ts';
import {
  cityLog,
  createRunningCity,
  LEASE_TTL_MS,
  startCluster,
  TICK_MS,
  TOKEN,
  until,
} from './clusterKit.ts';

/**
 * Issue #20 fault: the owner of a city is cut off from NATS (its only route to the broker is a TCP relay
 * the test cuts). It must stop writing at once, its streams must report the outage as a problem frame
 * and its new requests as 503 problems (never silence), the other supervisor must take the city over,
 * and once the partition heals the old owner serves the city as a replica (writes forwarded), having
 * written nothing after the new owner's fence.
 */
t.setTimeout(4 * 60_000);

t.test(
  'a supervisor partitioned from NATS is fenced, reports the outage, and rejoins as a replica',
  async (t) => {
    let proxy: TcpProxy | undefined;
    const cluster = await startCluster(t, {
      a: async (nats) => {
        proxy = await startTcpProxy(t, nats.nodes[0]!.port);
        return { GC_NATS_URL: `nats://127.0.0.1:${proxy.port}` };
      },
    });
    if (!cluster) return;
    const { a, b } = cluster;
    await createRunningCity(a, 'harbor');
    await until('B to follow harbor', async () => {
      const r = await b.call('GET', '/v0/cities');
      return (
        (r.body.items as Array<{ name: string; running: boolean }>).some(
          (c) => c.name === 'harbor' && c.running,
        ) || undefined
      );
    });
    const emit = (m: typeof a, id: string) =>
      m.call('POST', '/v0/city/harbor/events', { type: 'custom.write', actor: 'tester', subject: id });
    t.equal((await emit(a, 'before')).status, 201, 'the owner writes before the partition');
    const stream = await openSse(`${a.url}/v0/city/harbor/events/stream?access_token=${TOKEN}`);
    t.teardown(() => stream.close());
    t.equal(stream.status, 200);

    const cutAt = Date.now();
    proxy!.cut();
    // The stream says why it ends: a problem frame, then the end (the client reconnects and gets a 503).
    let frame = await stream.next(10_000);
    while (frame.event === 'heartbeat') frame = await stream.next(10_000);
    t.equal(frame.event, 'problem', 'the open stream reports the outage');
    t.match(JSON.parse(frame.data), { status: 503, detail: /^journal_unavailable: / });
    await stream.ended;
    t.pass('and ends');

    const refused = await emit(a, 'during');
    t.equal(refused.status, 503, 'a write to the cut-off owner is refused');
    t.match(refused.body, { detail: /^journal_unavailable: / });
    const reopened = await a.call('GET', '/v0/city/harbor/events/stream');
    t.equal(reopened.status, 503, 'a new stream is a 503 problem before any 200');
    t.match(reopened.headers.get('content-type'), /^application\/problem\+json/);

    const takenAt = await until(
      'B to own harbor',
      async () => {
        const r = await emit(b, `b-${Date.now()}`);
        return r.status === 201 && !r.headers.get('gc-city-owner') ? Date.now() : undefined;
      },
      30_000,
    ).catch((err: unknown) => {
      // The two supervisors' view of the lease, for the post-mortem.
      const notes = (log: string) => log.split('\n').filter((l) => /lease|adopted|round|tended/.test(l));
      t.comment([...notes(a.proc.log()), ...notes(b.proc.log())].join('\n').slice(-4000));
      throw err;
    });
    t.comment(
      `B took harbor over ${takenAt - cutAt} ms after the cut (TTL ${LEASE_TTL_MS} ms, tick ${TICK_MS} ms)`,
    );

    proxy!.heal();
    const forwarded = await until(
      'A to serve harbor as a replica',
      async () => {
        const r = await emit(a, `after-${Date.now()}`);
        return r.status === 201 ? r : undefined;
      },
      30_000,
    );
    t.equal(
      forwarded.headers.get('gc-city-owner'),
      b.url,
      'after healing, A forwards writes to the new owner',
    );

    const log = await cityLog(b, 'harbor');
    const fence = log.findIndex((e) => e.type === 'city.owner_changed');
    t.ok(fence > 0, 'the new owner fenced the log');
    t.notOk(
      log.some((e) => e.subject === 'during'),
      'the write refused during the partition is not in the log',
    );
    t.same(
      log.map((e) => e.seq),
      log.map((_, i) => i + 1),
      'the log is gap-free',
    );
    const ownersAfter = log.slice(fence).filter((e) => e.type === 'city.owner_changed');
    t.equal(ownersAfter.length, 1, 'nobody took it back');
    t.match(ownersAfter[0]?.payload, { url: b.url });
  },
);
