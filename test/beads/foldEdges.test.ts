/**
 * The fold at its edges (machines/beads/evolve.ts, events.ts): events at or below the model's seq are
 * ignored, an update keeps a bead's creation ordinal, keyed creates are recorded only from a
 * `bead.created` with both key and hash, a damaged record names its problem, and a decision folded before
 * it is durable is taken back whole. Expected values worked out by hand.
 */
import t from 'tap';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import {
  createModel,
  evolve,
  evolveUndoable,
  type BeadModel,
  type StoredBead,
} from '../../machines/beads/index.ts';
import { DamagedRecordError } from '../../schemas/eventDecode.ts';
import { beadCity } from '../helpers/beadCity.ts';

const TS = '2030-05-01T12:00:00.000Z';
const stored = (id: string, extra: Partial<StoredBead> = {}): StoredBead => ({
  id,
  title: id,
  status: 'open',
  issue_type: 'task',
  created_at: TS,
  ...extra,
});
const ev = (seq: number, type: string, bead?: StoredBead): JournalEvent => ({
  seq,
  ts: TS,
  type,
  actor: 'a',
  ...(bead ? { subject: bead.id, payload: { bead } } : {}),
});
const snapshot = (m: BeadModel) =>
  JSON.stringify({
    seq: m.seq,
    next: m.nextNumber,
    beads: [...m.beads],
    keys: [...m.idempotency],
    open: [...(m.indexes.byStatus.get('open') ?? [])],
  });

t.test('an event at or below the model’s seq is ignored', async (t) => {
  const m = createModel('fe');
  evolve(m, ev(5, 'bead.created', stored('fe-1')), 'fe');
  evolve(m, ev(5, 'bead.updated', stored('fe-1', { title: 'same seq' })), 'fe');
  evolve(m, ev(4, 'bead.updated', stored('fe-1', { title: 'older' })), 'fe');
  t.equal(m.beads.get('fe-1')!.bead.title, 'fe-1');
  t.equal(m.seq, 5);
  evolve(m, ev(6, 'session.woke'), 'fe');
  t.equal(m.seq, 6, 'another family’s event still moves the seq');
});

t.test('an update keeps the creation ordinal; ids advance the counter', async (t) => {
  const m = createModel('fe');
  evolve(m, ev(1, 'bead.created', stored('fe-1')), 'fe');
  evolve(m, ev(2, 'bead.created', stored('fe-7')), 'fe');
  evolve(m, ev(3, 'bead.updated', stored('fe-1', { title: 'changed' })), 'fe');
  t.equal(m.beads.get('fe-1')!.ordinal, 1);
  t.equal(m.nextNumber, 8, 'past the highest id of the prefix');
  evolve(m, ev(4, 'bead.created', stored('zz-99')), 'fe');
  t.equal(m.nextNumber, 8, 'another prefix does not move it');
});

t.test('keyed creates: recorded from bead.created with key and hash only', async (t) => {
  const keyed = (id: string, metadata: Record<string, string>) => stored(id, { metadata });
  const m = createModel('fe');
  evolve(
    m,
    ev(1, 'bead.created', keyed('fe-1', { 'gc.idempotency_key': 'k1', 'gc.request_sha256': 'h1' })),
    'fe',
  );
  evolve(m, ev(2, 'bead.created', keyed('fe-2', { 'gc.idempotency_key': 'k2' })), 'fe');
  evolve(
    m,
    ev(3, 'bead.updated', keyed('fe-3', { 'gc.idempotency_key': 'k3', 'gc.request_sha256': 'h3' })),
    'fe',
  );
  t.same([...m.idempotency.keys()], ['k1'], 'no hash, or first seen as an update: not recorded');
  t.equal(m.idempotency.get('k1')!.hash, 'h1');
});

t.test('a bead event without a bead id is a damaged record that names its problem', async (t) => {
  const m = createModel('fe');
  const bad = { seq: 1, ts: TS, type: 'bead.created', actor: 'a', payload: { bead: { title: 'no id' } } };
  const err = t.throws(() => evolve(m, bad, 'city-a')) as DamagedRecordError;
  t.ok(err instanceof DamagedRecordError);
  t.same(err.problems, ['/bead/id: a folded bead needs its id']);
  t.equal(m.seq, 0, 'the model stays at the event before it');
});

t.test('a decision folded before it is durable is taken back whole, in reverse', async (t) => {
  const m = createModel('fe');
  evolve(m, ev(1, 'bead.created', stored('fe-1')), 'fe');
  const before = snapshot(m);
  const undo = evolveUndoable(
    m,
    [
      ev(2, 'bead.updated', stored('fe-1', { title: 'changed', status: 'in_progress' })),
      ev(
        3,
        'bead.created',
        stored('fe-2', { metadata: { 'gc.idempotency_key': 'k', 'gc.request_sha256': 'h' } }),
      ),
      ev(4, 'mail.sent'),
      ev(4, 'bead.updated', stored('fe-1', { title: 'ignored: not past seq 4' })),
    ],
    'fe',
  );
  t.equal(m.beads.get('fe-1')!.bead.title, 'changed');
  t.equal(m.seq, 4);
  t.equal(m.nextNumber, 3);
  t.ok(m.idempotency.has('k'));
  undo();
  t.equal(snapshot(m), before, 'beads, indexes, counter, seq and keys as they were');
  evolve(m, ev(2, 'bead.created', stored('fe-2')), 'fe');
  t.equal(m.beads.get('fe-2')!.ordinal, 2, 'the order index was taken back too');
});

t.test('a key already recorded is not dropped by taking back a later create that carries it', async (t) => {
  const m = createModel('fe');
  const meta = { 'gc.idempotency_key': 'k', 'gc.request_sha256': 'h' };
  evolve(m, ev(1, 'bead.created', stored('fe-1', { metadata: meta })), 'fe');
  const undo = evolveUndoable(m, [ev(2, 'bead.created', stored('fe-2', { metadata: meta }))], 'fe');
  undo();
  t.equal(m.idempotency.get('k')?.bead.id, 'fe-1');
});

t.test(
  'a deletion cannot be folded before it is durable; a damaged event takes back those before it',
  async (t) => {
    const m = createModel('fe');
    evolve(m, ev(1, 'bead.created', stored('fe-1')), 'fe');
    const before = snapshot(m);
    t.throws(() => evolveUndoable(m, [ev(2, 'bead.deleted', stored('fe-1'))], 'fe'), {
      message: 'a bead deletion cannot be applied before it is durable',
    });
    t.equal(snapshot(m), before);
    const damaged = {
      seq: 3,
      ts: TS,
      type: 'bead.updated',
      actor: 'a',
      payload: { bead: {} },
    } as unknown as JournalEvent;
    t.throws(
      () => evolveUndoable(m, [ev(2, 'bead.updated', stored('fe-1', { title: 'x' })), damaged], 'fe'),
      DamagedRecordError,
    );
    t.equal(snapshot(m), before, 'the update before it was taken back');
  },
);

t.test('mail notices carry the message’s rig, or "" without one', async (t) => {
  const city = beadCity('ml');
  city.run({ type: 'SendMail', input: { to: 'mayor', subject: 's' } });
  t.match(city.written.at(-1), { type: 'mail.sent', payload: { rig: '' } });
});
