import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import { isSeqConflict, UnavailableError } from '../actors/runtime/errors.ts';
import { connect } from '@nats-io/transport-node';
import { NoRespondersError, TimeoutError } from '@nats-io/nats-core';
import {
  JetStreamJournalBackend,
  jetStreamLiveResources,
} from '../actors/runtime/journal/jetstreamJournal.ts';
import { JetStreamPublisher } from '../actors/runtime/journal/jetstreamPublisher.ts';
import type {
  Journal,
  JournalBackend,
  JournalEvent,
  LogLocation,
} from '../actors/runtime/journal/journal.ts';
import { journalConformance, take } from './conformance/journalConformance.ts';
import { jetstream } from '@nats-io/jetstream';
import { batchMsgId, encodeBatch } from '../actors/runtime/journal/jetstreamCodec.ts';
import { streamAddress } from '../actors/runtime/journal/jetstreamNames.ts';
import { LogRuntime } from '../actors/runtime/logRuntime/logRuntime.ts';
import { recordOf } from '../machines/recorded.ts';
import type { EventDraft } from '../schemas/event.ts';
import { withJetStream } from './helpers/nats.ts';

const nats = await withJetStream(t);
if (nats) {
  // Unique names isolate this file's streams even if a store dir were ever shared.
  const prefix = `t${randomBytes(4).toString('hex')}`;
  let n = 0;
  const location = (): LogLocation => ({
    name: `city${++n}`,
    file: `/gc-test/${prefix}/city${n}/.gc/events.jsonl`,
  });
  const backend = (options: { requestTimeoutMs?: number; resolveTimeoutMs?: number } = {}) =>
    new JetStreamJournalBackend({ servers: nats.url, prefix, ...options });
  const opened = async (t: Test, b: JournalBackend, loc: LogLocation): Promise<Journal> => {
    t.teardown(() => b.close());
    return b.open(loc);
  };

  journalConformance(t, {
    backend: async () => backend(),
    location,
    liveResources: jetStreamLiveResources,
    child: (loc) => ['jetstream', nats.url, prefix, loc.file],
    restartBroker: () => nats.restart(),
    brokerFaults: {
      fresh: (t, { requestMs, resolveMs }) =>
        opened(t, backend({ requestTimeoutMs: requestMs, resolveTimeoutMs: resolveMs }), location()),
      pause: () => nats.pause(),
      resume: () => nats.resume(),
      restart: () => nats.restart(),
    },
  });

  t.test('two supervisors fenced on one log never interleave their writes', async (t) => {
    const loc = location();
    const writers = [await opened(t, backend(), loc), await opened(t, backend(), loc)];
    // Each writer decides a run of 5 events from the head it last saw and appends them fenced; a run
    // that loses the race is abandoned and decided again from the new head, as an actor would.
    let conflicts = 0;
    const write = async (j: Journal, w: number): Promise<void> => {
      for (let run = 0, attempt = 0; run < 10; attempt++) {
        let head = attempt === 0 ? 0 : await j.head();
        try {
          for (let i = 0; i < 5; i++) {
            await j.append(
              { type: 'run.step', actor: `w${w}`, payload: { run, i } },
              { expectedSeq: head++ },
            );
          }
          run++;
        } catch (err) {
          if (!isSeqConflict(err)) throw err;
          conflicts++;
        }
      }
    };
    await Promise.all(writers.map((j, w) => write(j, w)));
    t.ok(conflicts >= 1, `both writers started from head 0, so at least one lost a race (${conflicts})`);
    const events = await writers[0]!.list();
    t.same(
      events.map((e) => e.seq),
      Array.from({ length: events.length }, (_, i) => i + 1),
      'gap-free',
    );
    // Every landed step continues its own writer's run: a foreign write in between would have made the
    // rest of that run conflict instead of landing.
    const step = (i: number) => (events[i]!.payload as { i: number }).i;
    const foreign = events
      .filter((e, i) => step(i) > 0 && (events[i - 1]!.actor !== e.actor || step(i - 1) !== step(i) - 1))
      .map((e) => e.seq);
    t.same(foreign, [], "no step lands after another run's event");
    const complete = events.filter((e) => (e.payload as { i: number }).i === 4);
    t.equal(complete.length, 20, 'ten complete runs per writer');
  });

  t.test('an append retried with the same msg id is stored once, across supervisors', async (t) => {
    const loc = location();
    const a = await opened(t, backend(), loc);
    const b = await opened(t, backend(), loc);
    const first = await a.append({ type: 'request.accepted', actor: 'api' }, { msgId: 'req-42' });
    const retries = await Promise.all(
      Array.from({ length: 5 }, () =>
        b.append({ type: 'request.accepted', actor: 'api' }, { msgId: 'req-42' }),
      ),
    );
    t.same(
      retries.map((e) => e.seq),
      [1, 1, 1, 1, 1],
      'every retry answers with the original seq',
    );
    t.equal(retries[0]?.ts, first.ts, 'and with the originally stored event');
    t.equal(await a.head(), 1, 'one event stored');
  });

  t.test('a retry with the same msg id after a broker restart is still stored once', async (t) => {
    const j = await opened(t, backend(), location());
    await j.append({ type: 'a', actor: 'x' }, { msgId: 'once' });
    await nats.restart();
    let retried: JournalEvent | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        retried = await j.append({ type: 'a', actor: 'x' }, { msgId: 'once' });
        break;
      } catch (err) {
        if (!(err instanceof UnavailableError) || attempt > 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    t.equal(retried?.seq, 1);
    t.equal(await j.head(), 1);
  });

  t.test('appends fail fast with journal_unavailable while the broker is down', async (t) => {
    const j = await opened(t, backend({ requestTimeoutMs: 500 }), location());
    await j.append({ type: 'a', actor: 'x' });
    await nats.stop();
    try {
      // A read first: until the client has seen the socket close, an append already written to it has an
      // unknown outcome (that case is its own test); once the drop is known, appends must fail fast.
      await t.rejects(j.head(), UnavailableError);
      await t.rejects(j.append({ type: 'b', actor: 'x' }), {
        name: 'UnavailableError',
        code: 'journal_unavailable',
      });
    } finally {
      await nats.start();
    }
    for (let attempt = 0; ; attempt++) {
      try {
        t.equal((await j.append({ type: 'c', actor: 'x' })).seq, 2, 'appends resume after the restart');
        break;
      } catch (err) {
        if (!(err instanceof UnavailableError) || attempt > 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });

  t.test('a subscription from beyond the head yields only later seqs', async (t) => {
    // The server clamps a start sequence past the head back to head + 1; the journal must not.
    const j = await opened(t, backend(), location());
    await j.append({ type: 'a', actor: 'x' });
    const sub = j.subscribe(3);
    t.teardown(() => sub.close());
    for (let i = 0; i < 4; i++) await j.append({ type: 'b', actor: 'x' });
    const got = await take(sub, 2);
    t.same(
      got.map((e) => e.seq),
      [4, 5],
    );
  });

  t.test('long ranges list through a consumer that is deleted afterwards', async (t) => {
    const j = await opened(t, backend(), location());
    await Promise.all(
      Array.from({ length: 500 }, (_, i) => j.append({ type: i % 3 ? 'x' : 'y', actor: 'a' })),
    );
    t.equal((await j.list()).length, 500, 'all');
    t.same(
      (await j.list({ afterSeq: 100, beforeSeq: 400, type: 'y', limit: 3 })).map((e) => e.type),
      ['y', 'y', 'y'],
      'filtered window',
    );
    t.same(
      (await j.list({ order: 'desc', limit: 2, beforeSeq: 300 })).map((e) => e.seq),
      [299, 298],
      'tail below a seq',
    );
    t.equal((await j.list({ order: 'desc' })).at(0)?.seq, 500, 'unlimited newest-first');
    t.equal(await jetStreamLiveResources(j), 0, 'no consumer is left behind');
  });

  t.test('two supervisors opening a new log at once share one stream', async (t) => {
    const loc = location();
    const [a, b] = await Promise.all([opened(t, backend(), loc), opened(t, backend(), loc)]);
    await a.append({ type: 'a', actor: 'x' });
    t.equal(await b.head(), 1);
  });

  t.test('the same file maps to the same stream from any backend', async (t) => {
    const loc = location();
    const a = await opened(t, backend(), loc);
    await a.append({ type: 'a', actor: 'x' });
    const b = await opened(t, backend(), { ...loc, name: 'renamed' });
    t.equal(await b.head(), 1);
  });

  t.test('a publish nobody acknowledges times out, and one nobody hears fails at once', async (t) => {
    const nc = await connect({ servers: nats.url });
    t.teardown(() => nc.close());
    const publisher = new JetStreamPublisher(nc, 300);
    // A plain subscriber shows interest (so no "no responders") but never answers, as a stalled broker.
    nc.subscribe('silent.subject');
    await nc.flush();
    const started = Date.now();
    await t.rejects(publisher.publish('silent.subject', '{}', { msgId: 'a' }), TimeoutError);
    t.ok(Date.now() - started < 2000, 'within the timeout plus one sweep');
    const err: unknown = await publisher
      .publish('nobody.listens', '{}', { msgId: 'b' })
      .catch((e: unknown) => e);
    // By instance, not via t.rejects: this class's `name` ("NoResponders") differs from the class name.
    t.ok(err instanceof NoRespondersError, 'no responders');
    publisher.close(new Error('closed'));
  });

  t.test('a batch cut short is held back from readers and finished by the next fenced writer', async (t) => {
    const loc = location();
    const j = await opened(t, backend(), loc);
    await j.append({ type: 'before', actor: 'x' });
    // What a writer that died after its first publish leaves: message 0 of 3, carrying the other two.
    const { bodies } = encodeBatch(
      ['x', 'y', 'z'].map((type) => ({ type, actor: 'w' })),
      new Date().toISOString(),
      'dead-writer',
    );
    const nc = await connect({ servers: nats.url });
    t.teardown(() => nc.close());
    await jetstream(nc).publish(streamAddress(loc.file, prefix).subject, bodies[0], {
      msgID: batchMsgId('dead-writer', 0),
      expect: { lastSequence: 1 },
    });
    t.same(
      (await j.list()).map((e) => e.type),
      ['before'],
      'not listed',
    );
    t.equal(await j.head(), 1, 'not in the head');
    const runtime = new LogRuntime(j);
    await runtime.catchUp();
    await runtime.run(() => ({
      records: [recordOf({ type: 'after', actor: 'x' } as unknown as EventDraft)],
      commit: () => undefined,
    }));
    t.same(
      (await j.list()).map((e) => e.type),
      ['before', 'x', 'y', 'z', 'after'],
      'finished from its first message, then the new write',
    );
    await runtime.close();
  });
}
