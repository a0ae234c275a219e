import { randomBytes } from 'node:crypto';
import t from 'tap';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { JetStreamJournalBackend } from '../../actors/runtime/journal/jetstreamJournal.ts';
import { SUPERVISOR_LOG, type Journal } from '../../actors/runtime/journal/journal.ts';
import { streamAddress } from '../../actors/runtime/journal/jetstreamNames.ts';
import { eventsServer, until } from '../helpers/eventsServer.ts';
import { withJetStream } from '../helpers/nats.ts';
import { openSse, type SseClient } from '../helpers/sse.ts';

/**
 * Every supervisor stream reads the one merged tail of its supervisor: on JetStream the server holds one
 * consumer per log whatever the number of streams (it held streams × logs before), and each stream still
 * gets every event, exactly once and in each log's order, head starts and resumes alike.
 */
const CITIES = 12;
const HEAD_STREAMS = 150;
const RESUMED_STREAMS = 30;

const tick = (subject: string) => ({ type: 'test.tick', actor: 'tester', subject });

t.test('streams × cities on JetStream: one consumer per log, every event to every stream', async (t) => {
  const nats = await withJetStream(t);
  if (!nats) return;
  const prefix = `t${randomBytes(4).toString('hex')}`;
  const backend = new JetStreamJournalBackend({ servers: nats.url, prefix });
  t.teardown(() => backend.close());
  const file = (name: string) => `/gc-test/${prefix}/${name}/.gc/events.jsonl`;
  const supervisor = await backend.open({ name: SUPERVISOR_LOG, file: file(SUPERVISOR_LOG) });
  const srv = await eventsServer(t, { supervisorLog: supervisor });
  const cities: Journal[] = [];
  for (let i = 0; i < CITIES; i++) {
    const name = `c${String(i).padStart(2, '0')}`;
    const journal = await backend.open({ name, file: file(name) });
    await journal.append(tick(`${name}-seed`));
    cities.push(srv.addCity(name, journal));
  }
  const nc = await connect({ servers: nats.url });
  t.teardown(() => nc.close());
  const jsm = await jetstreamManager(nc);
  const consumers = async (): Promise<number> => {
    let sum = 0;
    for (const name of [SUPERVISOR_LOG, ...cities.map((c) => c.name)])
      sum += (await jsm.streams.info(streamAddress(file(name), prefix).stream)).state.consumer_count;
    return sum;
  };
  t.equal(await consumers(), 0, 'no consumer before any stream');

  const streams: SseClient[] = [];
  t.teardown(() => streams.forEach((s) => s.close()));
  for (let i = 0; i < HEAD_STREAMS; i++) streams.push(await openSse(`${srv.base}/v0/events/stream`));
  // Resumes from before the seeds: each reads the logs by itself until it reaches the tail.
  for (let i = 0; i < RESUMED_STREAMS; i++)
    streams.push(await openSse(`${srv.base}/v0/events/stream?after_cursor=0`));
  t.ok(
    streams.every((s) => s.status === 200),
    'every stream opened',
  );

  const ROUNDS = 5;
  for (let r = 0; r < ROUNDS; r++) {
    await Promise.all(cities.map((c) => c.append(tick(`${c.name}-${r}`))));
    await supervisor.append(tick(`sup-${r}`));
  }
  const wanted = (s: SseClient, i: number) => (i < HEAD_STREAMS ? 0 : CITIES) + ROUNDS * (CITIES + 1);
  const got = await Promise.all(
    streams.map(async (s, i) => {
      const events: Array<{ city: string; seq: number }> = [];
      for (let n = 0; n < wanted(s, i); n++) {
        const data = JSON.parse((await s.nextEvent(20_000)).data);
        events.push({ city: data.city, seq: data.seq });
      }
      return events;
    }),
  );
  for (const [i, events] of got.entries()) {
    const byLog = new Map<string, number[]>();
    for (const e of events) byLog.set(e.city, [...(byLog.get(e.city) ?? []), e.seq]);
    const from = i < HEAD_STREAMS ? 2 : 1;
    const ok =
      byLog.size === CITIES + 1 &&
      cities.every(
        (c) => byLog.get(c.name)!.join() === [...Array(ROUNDS + 2 - from).keys()].map((k) => k + from).join(),
      ) &&
      byLog.get(SUPERVISOR_LOG)!.join() === '1,2,3,4,5';
    if (!ok) t.fail(`stream ${i} got ${JSON.stringify([...byLog])}`);
  }
  t.pass(`${streams.length} streams got every event once, in order per log`);
  const held = await consumers();
  t.equal(
    held,
    CITIES + 1,
    `one consumer per log for ${streams.length} streams (not ${streams.length * (CITIES + 1)})`,
  );

  for (const s of streams) s.close();
  await until(() => srv.streams.size === 0, 10_000, 'streams to close');
  // Consumers of closed subscriptions are deleted asynchronously.
  const deadline = Date.now() + 10_000;
  while ((await consumers()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.equal(await consumers(), 0, 'the last stream gone, the tail releases every consumer');
});
