import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import {
  InternalError,
  OutcomeUnknownError,
  SeqConflictError,
  UnavailableError,
} from '../../actors/runtime/errors.ts';
import { FileJournal } from '../../actors/runtime/journal/fileJournal.ts';
import type { EventDraft, Journal, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import type { LogFolder } from '../../actors/runtime/logRuntime/decision.ts';
import { RETRY_ON_SEQ_CONFLICT } from '../../actors/runtime/logRuntime/retryPolicy.ts';
import { recordOf } from '../../machines/recorded.ts';

// These tests are about fencing, batches and folding, not event types: any type name reads best here, so
// the typed draft is bypassed on purpose (the journal stores any type).
const draft = (type: string) => ({ type, actor: 'test', payload: {} }) as unknown as EventDraft;
const types = (events: readonly JournalEvent[]) => events.map((e) => e.type);

/** A read model that remembers what it was handed, and checks it comes in order, each event once. */
function recorder(t: Test, seq = 0): LogFolder & { seen: string[]; seq: number } {
  const folder = {
    seen: [] as string[],
    seq,
    fold(events: readonly JournalEvent[]) {
      for (const e of events) {
        t.equal(e.seq, folder.seq + 1, `event ${e.seq} follows ${folder.seq}`);
        folder.seq = e.seq;
        folder.seen.push(e.type);
      }
    },
  };
  return folder;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

t.test(
  'a decision is appended as one batch, fenced at the head, and folded into the other folders',
  async (t) => {
    const events: JournalEvent[] = [];
    const runtime = new LogRuntime(new MemoryJournal('log', events));
    const origin = recorder(t);
    const other = recorder(t);
    await runtime.attach(origin, 0);
    await runtime.attach(other, 0);
    const out = await runtime.run(
      () => ({ records: [recordOf(draft('a')), recordOf(draft('b'))], commit: (stored) => stored.length }),
      origin,
    );
    t.equal(out, 2, 'commit sees the stored records');
    t.equal(runtime.head, 2);
    t.same(types(events), ['a', 'b']);
    t.same(other.seen, ['a', 'b'], 'the other read model folds them');
    t.same(origin.seen, [], 'the decider commits its own records itself');
  },
);

t.test('attach folds what a folder missed, from its own seq', async (t) => {
  const journal = new MemoryJournal('log');
  for (const type of ['a', 'b', 'c']) await journal.append(draft(type));
  const runtime = new LogRuntime(journal, 0, { pageSize: 2 });
  const first = recorder(t);
  await runtime.attach(first, 0);
  t.same(first.seen, ['a', 'b', 'c'], 'paged through the whole log');
  const restored = recorder(t, 2);
  await runtime.attach(restored, 2);
  t.same(restored.seen, ['c'], 'a folder restored at seq 2 gets only what follows');
  await runtime.run(() => ({ records: [recordOf(draft('d'))], commit: () => undefined }));
  t.same(first.seen, ['a', 'b', 'c', 'd']);
  t.same(restored.seen, ['c', 'd']);
});

t.test(
  'a family folder attached behind the head reads its family up to the head, then every event',
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'gc-runtime-family-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const file = await FileJournal.open({ name: 'log', file: join(dir, 'events.jsonl') });
    t.teardown(() => file.close());
    for (const journal of [new MemoryJournal('log'), file]) {
      for (const type of ['a.1', 'x.1', 'a.2', 'x.2', 'xa.3', 'a.3', 'x.3'])
        await journal.append(draft(type));
      const runtime = new LogRuntime(journal, 0, { pageSize: 2 });
      await runtime.attach(recorder(t), 0);
      const seen: string[] = [];
      const caughtUp: number[] = [];
      const family: LogFolder = {
        typePrefix: 'a.',
        fold: (events) => seen.push(...events.map((e) => `${e.seq}:${e.type}`)),
        caughtUp: (seq) => caughtUp.push(seq),
      };
      await runtime.attach(family, 1);
      t.same(seen, ['3:a.2', '6:a.3'], `${journal.constructor.name}: its own family after its seq, paged`);
      t.same(caughtUp, [7], 'told the head it has seen the log to');
      await runtime.run(() => ({ records: [recordOf(draft('x.4'))], commit: () => undefined }));
      t.same(seen.slice(2), ['8:x.4'], 'past the head it is handed every event');
      await runtime.close();
    }
  },
);

t.test('a conflict is caught up with, decided again, and retried', async (t) => {
  const events: JournalEvent[] = [];
  const runtime = new LogRuntime(new MemoryJournal('log', events));
  const folder = recorder(t);
  await runtime.attach(folder, 0);
  await new MemoryJournal('log', events).append(draft('theirs'));
  let decisions = 0;
  const out = await runtime.run(() => {
    decisions++;
    // The second decision sees what the other writer did: this is the state it decides from.
    const seen = folder.seen.includes('theirs');
    return { records: [recordOf(draft(seen ? 'mine' : 'stale'))], commit: () => decisions };
  });
  t.equal(out, 2, 'decided twice');
  t.same(types(events), ['theirs', 'mine'], 'the stale decision never reached the log');
  t.same(folder.seen, ['theirs', 'mine']);
  t.equal(runtime.head, 2);
});

t.test('two runtimes on one log fence each other and both folders see every event once', async (t) => {
  const events: JournalEvent[] = [];
  const one = new LogRuntime(new MemoryJournal('log', events));
  const two = new LogRuntime(new MemoryJournal('log', events));
  const a = recorder(t);
  const b = recorder(t);
  await one.attach(a, 0);
  await two.attach(b, 0);
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      (i % 2 ? one : two).run(() => ({ records: [recordOf(draft(`e${i}`))], commit: () => undefined })),
    ),
  );
  await one.catchUp();
  await two.catchUp();
  t.equal(events.length, 10);
  t.same(a.seen, types(events));
  t.same(b.seen, types(events));
});

t.test('follow folds what another writer appends, and skips our own', async (t) => {
  const events: JournalEvent[] = [];
  const journal = new MemoryJournal('log', events);
  const runtime = new LogRuntime(journal);
  const folder = recorder(t);
  await runtime.attach(folder, 0);
  runtime.follow();
  await runtime.run(() => ({ records: [recordOf(draft('mine'))], commit: () => undefined }));
  // Another process's write lands on the shared log; ours wakes the subscription that finds both.
  await new MemoryJournal('log', events).append(draft('theirs'));
  await runtime.run(() => ({ records: [recordOf(draft('mine-too'))], commit: () => undefined }));
  await until(() => folder.seen.length === 3, 'three folded events');
  t.same(folder.seen, ['mine', 'theirs', 'mine-too']);
  await runtime.close();
});

t.test('a decision that becomes a no-op after catching up appends nothing', async (t) => {
  const events: JournalEvent[] = [];
  const runtime = new LogRuntime(new MemoryJournal('log', events));
  const folder = recorder(t);
  await runtime.attach(folder, 0);
  await new MemoryJournal('log', events).append(draft('terminal'));
  await runtime.run(() => ({
    records: folder.seen.includes('terminal') ? [] : [recordOf(draft('terminal'))],
    commit: () => undefined,
  }));
  t.same(types(events), ['terminal'], 'exactly one terminal');
});

t.test('conflicts are retried only as often as the policy says', async (t) => {
  const events: JournalEvent[] = [];
  const other = new MemoryJournal('log', events);
  const runtime = new LogRuntime(new MemoryJournal('log', events));
  let attempts = 0;
  await t.rejects(
    runtime.run(() => {
      attempts++;
      // Another writer gets in before every attempt.
      void other.append(draft('theirs'));
      return { records: [recordOf(draft('mine'))], commit: () => undefined };
    }),
    SeqConflictError,
  );
  t.equal(attempts, RETRY_ON_SEQ_CONFLICT.retries + 1);
  t.notOk(events.some((e) => e.type === 'mine'));
});

t.test('other failures are not retried and nothing is committed', async (t) => {
  const journal = new MemoryJournal('log');
  journal.appendBatch = () => Promise.reject(new InternalError('disk on fire'));
  const runtime = new LogRuntime(journal);
  let attempts = 0;
  let committed = false;
  await t.rejects(
    runtime.run(() => {
      attempts++;
      return { records: [recordOf(draft('a'))], commit: () => (committed = true) };
    }),
    { message: 'disk on fire' },
  );
  t.equal(attempts, 1);
  t.notOk(committed);
});

t.test('runs are serialized per log', async (t) => {
  const events: JournalEvent[] = [];
  const runtime = new LogRuntime(new MemoryJournal('log', events));
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      runtime.run(() => ({ records: [recordOf(draft(`e${i}`))], commit: () => undefined })),
    ),
  );
  t.same(
    types(events),
    Array.from({ length: 20 }, (_, i) => `e${i}`),
  );
});

t.test(
  'without atomic batches, a decision refused after some records landed is outcome unknown',
  async (t) => {
    const events: JournalEvent[] = [];
    const memory = new MemoryJournal('log', events);
    // A backend that stores one record at a time (as JetStream does here), and refuses `b`.
    const journal: Journal = {
      name: 'log',
      append: (d, o) =>
        d.type === 'b'
          ? Promise.reject(new UnavailableError('disk full', 'journal_unavailable'))
          : memory.append(d, o),
      list: (f) => memory.list(f),
      head: () => memory.head(),
      subscribe: (after) => memory.subscribe(after),
      close: () => memory.close(),
    };
    const runtime = new LogRuntime(journal);
    const folder = recorder(t);
    await runtime.attach(folder, 0);
    let committed = false;
    const err: unknown = await runtime
      .run(() => ({
        records: [recordOf(draft('a')), recordOf(draft('b'))],
        commit: () => (committed = true),
      }))
      .catch((e: unknown) => e);
    // "Refused" would be a lie: `a` is in the log.
    t.ok(err instanceof OutcomeUnknownError, `not a refusal: ${String(err)}`);
    t.match((err as OutcomeUnknownError).detail, /^journal_outcome_unknown: .*part of the write was stored/);
    t.same(types(events), ['a']);
    t.same(folder.seen, ['a'], 'what landed is folded into the state');
    t.notOk(committed);
  },
);

t.test('a closed runtime refuses decisions', async (t) => {
  const runtime = new LogRuntime(new MemoryJournal('log'));
  await runtime.close();
  await t.rejects(
    runtime.run(() => ({ records: [recordOf(draft('a'))], commit: () => undefined })),
    UnavailableError,
  );
});
