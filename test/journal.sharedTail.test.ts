import t from 'tap';
import {
  JetStreamJournalBackend,
  jetStreamLiveResources,
} from '../actors/runtime/journal/jetstreamJournal.ts';
import type { Journal, JournalEvent, Subscription } from '../actors/runtime/journal/journal.ts';
import { withJetStream } from './helpers/nats.ts';

/**
 * Read-only subscribers of one JetStream log (the SSE streams of a city) share one consumer: each still gets
 * exactly the events after its own seq, in order, live ones included; a reader that stops reading is sent
 * back to paged reads instead of holding the others or queueing without bound.
 */
const emit = (journal: Journal, n: number, tag: string) =>
  journal.appendBatch!(
    Array.from({ length: n }, (_, i) => ({ type: `custom.${tag}`, actor: 't', subject: `${tag}${i}` })),
  );

/** Takes `n` events from `sub` (fails after `ms`). */
async function take(sub: Subscription, n: number, ms = 15_000): Promise<JournalEvent[]> {
  const out: JournalEvent[] = [];
  const it = sub[Symbol.asyncIterator]();
  const deadline = Date.now() + ms;
  while (out.length < n) {
    const next = await Promise.race([
      it.next(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`only ${out.length}/${n} events`)), deadline - Date.now()),
      ),
    ]);
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

const seqs = (events: JournalEvent[]) => events.map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

t.test(
  'readers from different seqs share one consumer and each gets its own events, live ones too',
  async (t) => {
    const nats = await withJetStream(t);
    if (!nats) return;
    const backend = new JetStreamJournalBackend({ servers: nats.url });
    t.teardown(() => backend.close());
    const journal = await backend.open({ name: 'tail', file: '/cities/tail/.gc/events.jsonl' });
    await emit(journal, 30, 'old');
    const readers = [0, 10, 30].map((from) => ({ from, sub: journal.subscribe(from, { readOnly: true }) }));
    const first = await Promise.all(readers.map((r) => take(r.sub, 30 - r.from)));
    for (const [i, r] of readers.entries())
      t.same(seqs(first[i]!), range(r.from + 1, 30), `reader from ${r.from} caught up`);
    await emit(journal, 20, 'live');
    const live = await Promise.all(readers.map((r) => take(r.sub, 20)));
    for (const [i, r] of readers.entries())
      t.same(seqs(live[i]!), range(31, 50), `reader from ${r.from} got the live events`);
    t.equal(
      await jetStreamLiveResources(journal),
      2,
      'one subscription and its one consumer for three readers',
    );
    t.equal(live[0]![0], live[1]![0], 'the same decoded event object is handed to every reader');
    await Promise.all(readers.map((r) => r.sub.close()));
    t.equal(await jetStreamLiveResources(journal), 0, 'the last reader to close takes the consumer with it');
  },
);

t.test(
  'a reader that stops reading neither holds the others nor misses anything when it resumes',
  async (t) => {
    const nats = await withJetStream(t);
    if (!nats) return;
    const backend = new JetStreamJournalBackend({ servers: nats.url });
    t.teardown(() => backend.close());
    const journal = await backend.open({ name: 'slow', file: '/cities/slow/.gc/events.jsonl' });
    const slow = journal.subscribe(0, { readOnly: true });
    const fast = journal.subscribe(0, { readOnly: true });
    await emit(journal, 5, 'a');
    t.same(seqs(await take(slow, 2)), [1, 2], 'the slow reader reads two, then stops');
    const total = 5000 + 5;
    for (let i = 0; i < 5; i++) await emit(journal, 1000, `b${i}`);
    t.same(seqs(await take(fast, total)), range(1, total), 'the fast reader is not held back');
    t.same(
      seqs(await take(slow, total - 2)),
      range(3, total),
      'the slow one resumes where it stopped, nothing missed or doubled',
    );
    await Promise.all([slow.close(), fast.close()]);
  },
);

t.test('closing a reader ends its iteration; closing the journal ends them all', async (t) => {
  const nats = await withJetStream(t);
  if (!nats) return;
  const backend = new JetStreamJournalBackend({ servers: nats.url });
  t.teardown(() => backend.close());
  const journal = await backend.open({ name: 'ends', file: '/cities/ends/.gc/events.jsonl' });
  const a = journal.subscribe(0, { readOnly: true });
  const b = journal.subscribe(0, { readOnly: true });
  const aDone = take(a, 1, 10_000);
  await a.close();
  t.same(await aDone, [], 'a closed reader ends without an event');
  const bDone = take(b, 1, 10_000);
  await journal.close();
  t.same(await bDone, [], 'a journal close ends the others');
});
