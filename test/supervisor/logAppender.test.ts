import t from 'tap';
import {
  InternalError,
  OutcomeUnknownError,
  SeqConflictError,
  UnavailableError,
} from '../../actors/errors.ts';
import type { EventDraft, JournalEvent } from '../../actors/journal/journal.ts';
import { MemoryJournal } from '../../actors/journal/memoryJournal.ts';
import { LogAppender, RETRY_ON_SEQ_CONFLICT } from '../../actors/logAppender.ts';
import { recordOf } from '../../machines/recorded.ts';

// These tests are about fencing and retries, not event types: any type name reads best here, so the typed
// draft is bypassed on purpose (the journal stores any type).
const draft = (type: string) => ({ type, actor: 'test', payload: {} }) as unknown as EventDraft;

t.test('appends are fenced at the head the decision was taken against', async (t) => {
  const events: JournalEvent[] = [];
  const mine = new MemoryJournal('log', events);
  const appender = new LogAppender(mine, 0, () => t.fail('no catch-up needed'));
  const out = await appender.run(() => ({
    records: [recordOf(draft('a')), recordOf(draft('b'))],
    commit: () => 'done',
  }));
  t.equal(out, 'done');
  t.equal(appender.head, 2);
  t.same(
    events.map((e) => e.type),
    ['a', 'b'],
  );
});

t.test('a conflict is caught up with, decided again, and retried', async (t) => {
  const events: JournalEvent[] = [];
  const mine = new MemoryJournal('log', events);
  const other = new MemoryJournal('log', events);
  const seen: string[] = [];
  const appender = new LogAppender(mine, 0, (missed) => seen.push(...missed.map((e) => e.type)));
  await other.append(draft('theirs'));
  let decisions = 0;
  const out = await appender.run(() => {
    decisions++;
    // The second decision sees what the other writer did: this is the state it decides from.
    return {
      records: seen.includes('theirs') ? [recordOf(draft('mine'))] : [recordOf(draft('stale'))],
      commit: () => decisions,
    };
  });
  t.equal(out, 2, 'decided twice');
  t.same(
    events.map((e) => e.type),
    ['theirs', 'mine'],
    'the stale decision never reached the log',
  );
  t.equal(appender.head, 2);
});

t.test('a decision that becomes a no-op after catching up appends nothing', async (t) => {
  const events: JournalEvent[] = [];
  const appender = new LogAppender(new MemoryJournal('log', events), 0, () => undefined);
  await new MemoryJournal('log', events).append(draft('terminal'));
  let caughtUp = false;
  const appenderWithFold = new LogAppender(new MemoryJournal('log', events), 0, () => (caughtUp = true));
  await appenderWithFold.run(() => ({
    records: caughtUp ? [] : [recordOf(draft('terminal'))],
    commit: () => undefined,
  }));
  t.same(
    events.map((e) => e.type),
    ['terminal'],
    'exactly one terminal',
  );
  t.equal(appender.head, 0, 'an idle appender keeps its head');
});

t.test('conflicts are retried only as often as the policy says', async (t) => {
  const events: JournalEvent[] = [];
  const mine = new MemoryJournal('log', events);
  const other = new MemoryJournal('log', events);
  const appender = new LogAppender(mine, 0, () => undefined);
  let attempts = 0;
  await t.rejects(
    appender.run(() => {
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
  journal.append = () => Promise.reject(new InternalError('disk on fire'));
  const appender = new LogAppender(journal, 0, () => undefined);
  let attempts = 0;
  let committed = false;
  await t.rejects(
    appender.run(() => {
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
  const appender = new LogAppender(new MemoryJournal('log', events), 0, () =>
    t.fail('serialized runs never conflict'),
  );
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      appender.run(() => ({ records: [recordOf(draft(`e${i}`))], commit: () => undefined })),
    ),
  );
  t.same(
    events.map((e) => e.type),
    Array.from({ length: 20 }, (_, i) => `e${i}`),
  );
});

t.test('a decision refused after some of its records landed answers outcome unknown', async (t) => {
  const events: JournalEvent[] = [];
  const journal = new MemoryJournal('log', events);
  const append = journal.append.bind(journal);
  journal.append = (d, o) =>
    d.type === 'b' ? Promise.reject(new UnavailableError('disk full', 'journal_unavailable')) : append(d, o);
  const folded: string[] = [];
  const appender = new LogAppender(journal, 0, (written) => folded.push(...written.map((e) => e.type)));
  let committed = false;
  const err: unknown = await appender
    .run(() => ({ records: [recordOf(draft('a')), recordOf(draft('b'))], commit: () => (committed = true) }))
    .catch((e: unknown) => e);
  // "Refused" would be a lie: `a` is in the log.
  t.ok(err instanceof OutcomeUnknownError, `not a refusal: ${String(err)}`);
  t.match((err as OutcomeUnknownError).detail, /^journal_outcome_unknown: .*part of the write was stored/);
  t.same(
    events.map((e) => e.type),
    ['a'],
  );
  t.same(folded, ['a'], 'what landed is folded into the state');
  t.notOk(committed);
});
