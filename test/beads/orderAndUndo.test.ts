/**
 * Four last edges of the beads core: an expanded-year instant is no RFC 3339 one, a parent chain through
 * a deleted bead ends the ancestor walk, taking back a decision that was only another family's event
 * restores the seq, and the ready list orders by creation, not by when a bead last became open.
 */
import t from 'tap';
import { createModel, evolveUndoable, isInstant, readyBeads } from '../../machines/beads/index.ts';
import { beadCity, CITY_NOW } from '../helpers/beadCity.ts';

t.test('an expanded year (+002030-…) is no RFC 3339 instant, though JavaScript reads it', async (t) => {
  t.ok(Number.isFinite(Date.parse('+002030-01-01T00:00:00Z')));
  t.equal(isInstant('+002030-01-01T00:00:00Z'), false);
});

t.test('a parent chain through a deleted bead ends the ancestor walk', async (t) => {
  const city = beadCity('pc');
  const a = city.create({ title: 'a' });
  const b = city.create({ title: 'b', parent: a });
  const c = city.create({ title: 'c' });
  city.run({ type: 'DeleteBead', id: a });
  city.update(c, { parent: b });
  t.equal(city.model.beads.get(c)!.bead.parent, b);
});

t.test('taking back a decision of another family’s event alone restores the seq', async (t) => {
  const m = createModel('un');
  const undo = evolveUndoable(m, [{ seq: 1, ts: CITY_NOW, type: 'mail.sent', actor: 'a' }], 'un');
  t.equal(m.seq, 1);
  undo();
  t.equal(m.seq, 0);
});

t.test('the ready list orders equal priorities by creation, even after a reopen', async (t) => {
  const city = beadCity('ro');
  const a = city.create({ title: 'a' });
  city.create({ title: 'b' });
  city.create({ title: 'c' });
  city.close(a);
  city.run({ type: 'ReopenBead', id: a });
  t.same(
    readyBeads(city.model, Date.parse(CITY_NOW)).map((bead) => bead.title),
    ['a', 'b', 'c'],
  );
});
