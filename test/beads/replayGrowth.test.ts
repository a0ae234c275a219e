/**
 * The replay's dense table (machines/beads/replay.ts) grown past twice its size at once, and to exactly
 * the size that holds a new bead: ids far ahead of the beads before them, after many events of other
 * families (a bead's number may run ahead of its seq by the table's slack). Every bead is in the model.
 */
import t from 'tap';
import { evolveAll } from '../../machines/beads/evolve.ts';
import { createModel, type BeadModel } from '../../machines/beads/model.ts';
import { BeadReplay } from '../../machines/beads/replay.ts';
import type { JournalEvent } from '../../schemas/event.ts';

const TS = '2030-01-01T00:00:00.000Z';

/** `fillers` events of another family, then a create of each id. */
function log(fillers: number, ...ids: string[]): JournalEvent[] {
  const list: JournalEvent[] = [];
  const push = (type: string, payload: unknown) =>
    list.push({ seq: list.length + 1, type, ts: TS, actor: 't', payload });
  for (let i = 0; i < fillers; i++) push('mail.sent', { n: i });
  for (const id of ids)
    push('bead.created', { bead: { id, title: id, status: 'open', issue_type: 'task', created_at: TS } });
  return list;
}

function replayed(list: readonly JournalEvent[]): BeadModel {
  const model = createModel('rp');
  const replay = new BeadReplay(model, 'mem-log');
  list.forEach((event, offset) => replay.note(event, offset));
  list.forEach((event, offset) => {
    if (replay.wanted(offset)) replay.fill(event, offset);
  });
  replay.finish();
  return model;
}

const summary = (m: BeadModel) => ({
  beads: [...m.beads].map(([id, e]) => [id, e.ordinal]),
  nextNumber: m.nextNumber,
  seq: m.seq,
});

t.test('a bead whose number is past twice the table', async (t) => {
  const list = log(2000, 'rp-1', 'rp-3000');
  const folded = createModel('rp');
  evolveAll(folded, list, 'mem-log');
  t.same(summary(replayed(list)), summary(folded));
  t.same(summary(replayed(list)).beads, [
    ['rp-1', 2001],
    ['rp-3000', 2002],
  ]);
});

t.test('a bead whose number is exactly twice the table', async (t) => {
  const list = log(1100, 'rp-2048', 'rp-2047');
  t.same(summary(replayed(list)).beads, [
    ['rp-2048', 1101],
    ['rp-2047', 1102],
  ]);
});
