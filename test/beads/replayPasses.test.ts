/**
 * The start-up replay's two passes (machines/beads/replay.ts), driven directly over a log held in memory, as
 * actors/beads/replay.ts drives them over the file: what each pass refuses, records it ignores, ids far
 * from the counter, and many beads; the model always the one an event-by-event fold builds.
 */
import t, { type Test } from 'tap';
import { beadLineOf } from '../../machines/beads/beadLine.ts';
import { evolveAll } from '../../machines/beads/evolve.ts';
import {
  createModel,
  IDEMPOTENCY_KEY,
  REQUEST_HASH_KEY,
  type BeadModel,
} from '../../machines/beads/model.ts';
import { BeadReplay } from '../../machines/beads/replay.ts';
import type { StoredBead } from '../../machines/beads/storedBead.ts';
import type { JournalEvent } from '../../schemas/event.ts';

const PREFIX = 'rp';
const LOG = 'mem-log';
const TS = '2030-01-01T00:00:00.000Z';

const bead = (id: string, more: Partial<StoredBead> = {}): StoredBead => ({
  id,
  title: id,
  status: 'open',
  issue_type: 'task',
  created_at: TS,
  ...more,
});

/** Events numbered from 1 in the order given. */
const events = (...specs: [string, StoredBead | Record<string, unknown>][]): JournalEvent[] =>
  specs.map(([type, b], i) => ({
    seq: i + 1,
    type,
    ts: TS,
    actor: 't',
    payload: type.startsWith('bead.') ? { bead: b } : b,
  }));

interface Line {
  event: JournalEvent;
  offset: number;
  start: number;
  end: number;
}

/** The log as the file holds it: one compact line each, with the byte offset of each. */
function logOf(list: readonly JournalEvent[]) {
  const lines: Line[] = [];
  const texts: string[] = [];
  let start = 0;
  for (const event of list) {
    const line = JSON.stringify(event);
    const end = start + Buffer.byteLength(line);
    lines.push({ event, offset: start, start, end });
    texts.push(line);
    start = end + 1;
  }
  return { buf: Buffer.from(`${texts.join('\n')}\n`), lines };
}

/** Both passes over `list`, as the actor runs them; `parseAll` skips the byte reader. */
function replayed(list: readonly JournalEvent[], parseAll = false): BeadModel {
  const model = createModel(PREFIX);
  const replay = new BeadReplay(model, LOG);
  const { buf, lines } = logOf(list);
  const prefix = new Uint8Array(Buffer.from(PREFIX, 'latin1'));
  for (const line of lines)
    replay.note((!parseAll && beadLineOf(buf, line.start, line.end, prefix)) || line.event, line.offset);
  for (const line of lines) if (replay.wanted(line.offset)) replay.fill(line.event, line.offset);
  replay.finish();
  return model;
}

function folded(list: readonly JournalEvent[]): BeadModel {
  const model = createModel(PREFIX);
  evolveAll(model, list, LOG);
  return model;
}

/** A model as plain data: beads in Map order, the counter, keys, the creation order walked, the indexes. */
function plain(m: BeadModel) {
  const sets = (index: Map<string, Set<string>>) =>
    [...index].map(([k, v]) => [k, [...v].sort()]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  const { order, byType, byAssignee, byRig, byLabel, ...plainIndexes } = m.indexes;
  return {
    seq: m.seq,
    nextNumber: m.nextNumber,
    beads: [...m.beads].map(([id, e]) => [id, e.ordinal, e.bead]),
    idempotency: [...m.idempotency].map(([k, r]) => [k, r.hash, r.bead.id]),
    order: [...order.newestFirst()].filter(([id, o]) => m.beads.get(id)?.ordinal === o),
    indexes: Object.fromEntries(Object.entries(plainIndexes).map(([k, v]) => [k, sets(v)])),
    halves: [byType, byAssignee, byRig, byLabel].map((h) => [sets(h.open), sets(h.closed)]),
  };
}

// Compared as JSON text: tap's deep comparison of 3,000 beads takes seconds.
const sameAsFold = (t: Test, list: readonly JournalEvent[], label: string) => {
  const want = JSON.stringify(plain(folded(list)));
  t.equal(JSON.stringify(plain(replayed(list))), want, `${label}: read from the bytes`);
  t.equal(JSON.stringify(plain(replayed(list, true))), want, `${label}: every line parsed`);
};

t.test('a replay starts from an empty model only', async (t) => {
  const folded1 = createModel(PREFIX);
  folded1.seq = 3;
  t.throws(() => new BeadReplay(folded1, LOG), { message: 'a replay starts from an empty model' });
  const withBead = createModel(PREFIX);
  withBead.beads.set('rp-1', { bead: bead('rp-1'), ordinal: 1 });
  t.throws(() => new BeadReplay(withBead, LOG), { message: 'a replay starts from an empty model' });
  t.doesNotThrow(() => new BeadReplay(createModel(PREFIX), LOG));
});

t.test('records at or below the last seq noted are ignored, parsed or read from bytes', async (t) => {
  const list = events(['bead.created', bead('rp-1')], ['bead.created', bead('rp-2')]);
  const model = createModel(PREFIX);
  const replay = new BeadReplay(model, LOG);
  const { buf, lines } = logOf(list);
  const prefix = new Uint8Array(Buffer.from(PREFIX, 'latin1'));
  replay.note(list[0]!, lines[0]!.offset);
  replay.note(list[1]!, lines[1]!.offset);
  // A late copy of seq 2 deleting rp-1, and one of seq 1 read from its bytes: neither counts.
  replay.note({ ...list[1]!, type: 'bead.deleted', payload: { bead: bead('rp-1') } }, 999);
  const again = logOf(events(['bead.deleted', bead('rp-2')]));
  replay.note(beadLineOf(again.buf, again.lines[0]!.start, again.lines[0]!.end, prefix)!, 998);
  t.equal(replay.seq, 2);
  for (const line of lines) if (replay.wanted(line.offset)) replay.fill(line.event, line.offset);
  t.notOk(replay.wanted(buf.length + 10), 'nothing is wanted past the last record');
  replay.finish();
  t.same([...model.beads.keys()], ['rp-1', 'rp-2']);
  t.equal(model.seq, 2);
});

t.test('other families’ events only move the seq, parsed or not', async (t) => {
  const list = events(['session.woke', { session: 's1' }], ['bead.created', bead('rp-1')], ['mail.sent', {}]);
  sameAsFold(t, list, 'mixed');
  t.equal(replayed(list, true).seq, 3);
});

t.test('ids far from the counter, foreign prefixes and numbers past the first slots', async (t) => {
  sameAsFold(
    t,
    events(
      ['bead.created', bead('rp-1')],
      ['bead.created', bead('rp-99999999999999')],
      ['bead.created', bead('zz-5')],
      ['bead.created', bead('rp-1030')],
      ['bead.updated', bead('rp-99999999999999', { status: 'in_progress' })],
      ['bead.deleted', bead('rp-1')],
      ['bead.created', bead('rp-1')],
      ['bead.deleted', bead('rp-424242')],
    ),
    'far ids',
  );
  // 3,000 of the store's own ids: the dense slots grow twice on the way.
  const many: [string, StoredBead][] = [];
  for (let n = 1; n <= 3000; n++) many.push(['bead.created', bead(`rp-${n}`, { labels: [`l${n % 3}`] })]);
  for (let n = 1; n <= 3000; n += 7) many.push(['bead.closed', bead(`rp-${n}`, { status: 'closed' })]);
  for (let n = 2; n <= 3000; n += 11) many.push(['bead.deleted', bead(`rp-${n}`)]);
  many.push(['bead.created', bead('rp-5000')]);
  sameAsFold(t, events(...many), '3,000 beads');
  const model = replayed(events(...many));
  t.equal(model.nextNumber, 5001);
  t.equal(model.beads.get('rp-2999')?.bead.status, 'open');
  t.equal(model.beads.get('rp-2997')?.bead.status, 'closed');
});

t.test('only a create records its idempotency key, the first one for a key', async (t) => {
  const keyed = (id: string, key: string, hash: string) =>
    bead(id, { metadata: { [IDEMPOTENCY_KEY]: key, [REQUEST_HASH_KEY]: hash } });
  const list = events(
    ['bead.created', keyed('rp-1', 'create-bead:a', 'h1')],
    ['bead.created', keyed('rp-2', 'create-bead:a', 'h2')],
    ['bead.updated', keyed('rp-40', 'create-bead:b', 'h3')],
    ['bead.created', keyed('zz-1', 'create-bead:c', 'h4')],
    ['bead.created', bead('rp-3', { metadata: { [IDEMPOTENCY_KEY]: 'create-bead:d' } })],
  );
  sameAsFold(t, list, 'keys');
  t.same(
    [...replayed(list).idempotency].map(([k, r]) => [k, r.hash, r.bead.id]),
    [
      ['create-bead:a', 'h1', 'rp-1'],
      ['create-bead:c', 'h4', 'zz-1'],
    ],
  );
});

t.test(
  'the second pass refuses a record the first did not keep, and finish one it did not get',
  async (t) => {
    const list = events(['bead.created', bead('rp-1')], ['bead.updated', bead('rp-1', { title: 'new' })]);
    const start = () => {
      const replay = new BeadReplay(createModel(PREFIX), LOG);
      const { lines } = logOf(list);
      for (const line of lines) replay.note(line.event, line.offset);
      return { replay, lines };
    };
    const stale = 'replay of log mem-log: seq 1 is not the record its first pass kept';
    {
      const { replay, lines } = start();
      t.notOk(replay.wanted(lines[0]!.offset), 'the older record is not wanted');
      t.ok(replay.wanted(lines[1]!.offset));
      t.throws(() => replay.fill(list[0]!, lines[0]!.offset), { message: stale });
    }
    {
      const { replay, lines } = start();
      replay.fill(list[1]!, lines[1]!.offset);
      t.throws(() => replay.fill(list[1]!, lines[1]!.offset), {
        message: 'replay of log mem-log: seq 2 is not the record its first pass kept',
      });
    }
    {
      const { replay, lines } = start();
      t.throws(() => replay.fill({ ...list[1]!, payload: undefined }, lines[1]!.offset), {
        message: 'replay of log mem-log: seq 2 is not the record its first pass kept',
      });
      t.throws(() => replay.fill({ ...list[1]!, payload: { bead: bead('zz-9') } }, lines[1]!.offset));
      t.throws(() => replay.finish(), { message: 'replay of log mem-log: 1 beads were not read again' });
    }
    {
      // A bead kept in the Map (an id far above the counter) is checked the same way.
      const far = events(
        ['bead.created', bead('rp-777777')],
        ['bead.updated', bead('rp-777777', { title: 'x' })],
      );
      const replay = new BeadReplay(createModel(PREFIX), LOG);
      const { lines } = logOf(far);
      for (const line of lines) replay.note(line.event, line.offset);
      t.throws(() => replay.fill(far[0]!, lines[0]!.offset), { message: stale });
      replay.fill(far[1]!, lines[1]!.offset);
      t.throws(() => replay.fill(far[1]!, lines[1]!.offset));
      replay.finish();
    }
  },
);
