import t from 'tap';
import { InternalError } from '../../actors/runtime/errors.ts';
import type { EventDraft, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import type { LogFolder, SpeculativeDecision } from '../../actors/runtime/logRuntime/decision.ts';
import { recordOf } from '../../machines/recorded.ts';

// Group commit is about order, batching and undo, not event types: the typed draft is bypassed on purpose.
const draft = (type: string) => ({ type, actor: 'test', payload: {} }) as unknown as EventDraft;

/**
 * A decider whose model is a list of applied names: each decision appends `name` unless `refuse` says no,
 * and sees the names of the decisions before it in the same round (the point of applying them early).
 */
function listDecider(runtime: LogRuntime) {
  const model = { names: [] as string[], seq: 0 };
  const folder: LogFolder = {
    fold(events: readonly JournalEvent[]) {
      for (const e of events) {
        if (e.seq <= model.seq) continue;
        model.names.push(e.type);
        model.seq = e.seq;
      }
    },
  };
  const seenAtDecision = new Map<string, string[]>();
  const run = (name: string, opts: { refuse?: boolean; undoable?: boolean } = {}) =>
    runtime.runSpeculative((): SpeculativeDecision<number> => {
      if (opts.refuse) throw new Error(`refused ${name}`);
      seenAtDecision.set(name, [...model.names]);
      return {
        records: [recordOf(draft(name))],
        undoable: opts.undoable ?? true,
        apply(events) {
          const before = model.seq;
          model.names.push(...events.map((e) => e.type));
          model.seq = events[events.length - 1]!.seq;
          return () => {
            model.names.length -= events.length;
            model.seq = before;
          };
        },
        commit: (stored) => stored[0]!.seq,
      };
    }, folder);
  return { model, folder, run, seenAtDecision };
}

t.test(
  'concurrent decisions are written in one batch, in order, each answered with its own seq',
  async (t) => {
    const journal = new MemoryJournal('log');
    const batches: number[] = [];
    const appendBatch = journal.appendBatch.bind(journal);
    journal.appendBatch = (drafts, options) => {
      batches.push(drafts.length);
      return appendBatch(drafts, options);
    };
    const runtime = new LogRuntime(journal);
    const d = listDecider(runtime);
    await runtime.attach(d.folder, 0);
    const names = Array.from({ length: 50 }, (_, i) => `e${i}`);
    const seqs = await Promise.all(names.map((n) => d.run(n)));
    t.same(
      seqs,
      names.map((_, i) => i + 1),
      'each decision answered with the seq it was stored at',
    );
    t.same(
      (await journal.list()).map((e) => e.type),
      names,
      'stored in the order asked',
    );
    t.ok(batches.length < names.length, `grouped: ${names.length} decisions in ${batches.length} writes`);
    t.same(d.seenAtDecision.get('e3'), ['e0', 'e1', 'e2'], 'a decision sees the round members before it');
    t.same(d.model.names, names, 'the model equals the log');
  },
);

t.test('a refused member changes nothing and the rest of its round still lands', async (t) => {
  const runtime = new LogRuntime(new MemoryJournal('log'));
  const d = listDecider(runtime);
  await runtime.attach(d.folder, 0);
  const results = await Promise.allSettled([d.run('a'), d.run('b', { refuse: true }), d.run('c')]);
  t.same(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  t.same(d.model.names, ['a', 'c']);
  t.equal(runtime.head, 2);
});

t.test('a failed batch undoes every member, last first, and answers each with the failure', async (t) => {
  const journal = new MemoryJournal('log');
  const runtime = new LogRuntime(journal);
  const d = listDecider(runtime);
  await runtime.attach(d.folder, 0);
  await d.run('before');
  journal.appendBatch = () => Promise.reject(new InternalError('disk on fire'));
  const results = await Promise.allSettled(['x', 'y', 'z'].map((n) => d.run(n)));
  t.ok(
    results.every((r) => r.status === 'rejected' && /disk on fire/.test(String(r.reason))),
    'every member refused with the write failure',
  );
  t.same(d.model.names, ['before'], 'the model is back where the log is');
  t.equal(d.model.seq, 1);
  t.equal(runtime.head, 1);
});

t.test('a round that loses the fencing race is undone, caught up and decided again', async (t) => {
  const events: JournalEvent[] = [];
  const runtime = new LogRuntime(new MemoryJournal('log', events));
  const d = listDecider(runtime);
  await runtime.attach(d.folder, 0);
  // Another writer lands between our head and the round's write.
  await new MemoryJournal('log', events).append(draft('theirs'));
  const seqs = await Promise.all([d.run('a'), d.run('b')]);
  t.same(seqs, [2, 3]);
  t.same(
    events.map((e) => e.type),
    ['theirs', 'a', 'b'],
  );
  t.same(d.model.names, ['theirs', 'a', 'b'], 'folded once each, in log order');
  t.same(d.seenAtDecision.get('a'), ['theirs'], 'decided again against the caught-up model');
});

t.test('a decision that cannot be undone is decided on durable state and written alone', async (t) => {
  const journal = new MemoryJournal('log');
  const batches: string[][] = [];
  const appendBatch = journal.appendBatch.bind(journal);
  journal.appendBatch = (drafts, options) => {
    batches.push(drafts.map((x) => x.type));
    return appendBatch(drafts, options);
  };
  const runtime = new LogRuntime(journal);
  const d = listDecider(runtime);
  await runtime.attach(d.folder, 0);
  await Promise.all([d.run('a'), d.run('b'), d.run('final', { undoable: false }), d.run('c')]);
  t.same(batches, [['a', 'b'], ['final'], ['c']]);
  t.same(d.model.names, ['a', 'b', 'final', 'c']);
});
