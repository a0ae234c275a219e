/**
 * Convoys and the status counts (machines/beads/decideConvoy.ts, convoyView.ts, statusCounts.ts): every
 * refusal by its message, membership steps that are done or moot, the notices, the detail and the check
 * of a convoy, the open list, and the work counts a city's status shows. Built on a bead city folded by
 * the production decider; expected values worked out by hand.
 */
import t from 'tap';
import {
  checkConvoyItems,
  convoyCheck,
  convoyDetail,
  isConvoy,
  listConvoys,
} from '../../machines/beads/index.ts';
import { mailCounts, NOT_WORK_TYPES, workCounts } from '../../machines/beads/statusCounts.ts';
import { beadCity, CITY_NOW } from '../helpers/beadCity.ts';

const refusal = (out: { ok: boolean; rejection?: unknown }) => (out.ok ? 'accepted' : out.rejection);

function withConvoy() {
  const city = beadCity('cv');
  const a = city.create({ title: 'a' });
  const b = city.create({ title: 'b' });
  const convoy = (
    city.run({ type: 'CreateConvoy', title: 'Release', rig: 'app', items: [a, b] }) as { id: string }
  ).id;
  return { city, a, b, convoy };
}

t.test('a convoy is created only when every item exists; it is an open bead of type convoy', async (t) => {
  const city = beadCity('cv');
  const a = city.create({ title: 'a' });
  t.same(refusal(city.attempt({ type: 'CreateConvoy', title: 'x', items: [a, 'cv-99'] })), {
    kind: 'not_found',
    message: 'bead cv-99 not found',
  });
  const id = (city.run({ type: 'CreateConvoy', title: 'Release', rig: 'app', items: [a] }) as { id: string })
    .id;
  const bead = city.model.beads.get(id)!.bead;
  t.match(bead, { title: 'Release', status: 'open', issue_type: 'convoy', created_at: CITY_NOW });
  t.same(bead.metadata, { 'gc.rig': 'app' });
  t.equal(isConvoy(city.model, id), true);
  t.equal(isConvoy(city.model, a), false);
  const bare = (city.run({ type: 'CreateConvoy', title: 'No rig', items: [] }) as { id: string }).id;
  t.equal(city.model.beads.get(bare)!.bead.metadata, undefined, 'no rig: no metadata');
  t.same(
    city.written.slice(-1).map((e) => [e.type, e.subject, e.message]),
    [['bead.created', bare, 'No rig']],
  );
});

t.test('membership steps: one event each, none when done or when a bead is gone', async (t) => {
  const { city, a, convoy } = withConvoy();
  const step = (id: string, member: boolean) =>
    city.run({ type: 'SetConvoyMember', convoyId: convoy, id, member });
  let written = city.written.length;
  t.equal(step(a, true), true);
  t.equal(city.model.beads.get(a)!.bead.parent, convoy);
  t.equal(city.written.length, written + 1);
  t.match(city.written.at(-1), { type: 'bead.updated', subject: a });
  written = city.written.length;
  t.equal(step(a, true), false, 'already a member');
  t.equal(city.written.length, written, 'nothing written');
  t.equal(step(a, false), true);
  t.equal(city.model.beads.get(a)!.bead.parent, undefined);
  t.equal(step(a, false), false, 'already out');
  t.equal(
    city.run({ type: 'SetConvoyMember', convoyId: convoy, id: 'cv-99', member: true }),
    false,
    'bead gone',
  );
  t.equal(
    city.run({ type: 'SetConvoyMember', convoyId: 'cv-98', id: a, member: true }),
    false,
    'convoy gone',
  );
  t.equal(city.written.length, written + 1, 'only the removal was written');
});

t.test('items are checked against the convoy before any step', async (t) => {
  const { city, a, b, convoy } = withConvoy();
  city.run({ type: 'SetConvoyMember', convoyId: convoy, id: a, member: true });
  const m = city.model;
  t.same(checkConvoyItems(m, 'cv-99', [a], 'add'), { kind: 'not_found', message: 'convoy cv-99 not found' });
  t.same(checkConvoyItems(m, a, [b], 'add'), { kind: 'invalid', message: `bead ${a} is not a convoy` });
  t.same(checkConvoyItems(m, convoy, [convoy], 'add'), {
    kind: 'invalid',
    message: `convoy ${convoy} cannot contain itself`,
  });
  t.same(checkConvoyItems(m, convoy, ['cv-97'], 'add'), {
    kind: 'not_found',
    message: 'bead cv-97 not found',
  });
  t.same(checkConvoyItems(m, convoy, [b], 'remove'), {
    kind: 'invalid',
    message: `bead ${b} is not in convoy ${convoy}`,
  });
  t.equal(checkConvoyItems(m, convoy, [a], 'remove'), undefined);
  t.equal(checkConvoyItems(m, convoy, [a, b], 'add'), undefined);
});

t.test('the announcement names the convoy; close and delete write their events once', async (t) => {
  const { city, a, convoy } = withConvoy();
  t.equal(city.run({ type: 'AnnounceConvoy', convoyId: convoy }), convoy);
  t.match(city.written.at(-1), { type: 'convoy.created', subject: convoy, message: 'Release' });
  let from = city.written.length;
  city.run({ type: 'CloseConvoy', id: convoy });
  t.same(
    city.written.slice(from).map((e) => [e.type, e.subject]),
    [
      ['bead.closed', convoy],
      ['convoy.closed', convoy],
    ],
  );
  t.equal(city.model.beads.get(convoy)!.bead.status, 'closed');
  from = city.written.length;
  city.run({ type: 'CloseConvoy', id: convoy });
  t.equal(city.written.length, from, 'closing a closed convoy writes nothing');
  t.same(refusal(city.attempt({ type: 'CloseConvoy', id: a })), {
    kind: 'invalid',
    message: `bead ${a} is not a convoy`,
  });
  t.same(refusal(city.attempt({ type: 'DeleteConvoy', id: 'cv-99' })), {
    kind: 'not_found',
    message: 'convoy cv-99 not found',
  });
  city.run({ type: 'DeleteConvoy', id: convoy });
  t.match(city.written.at(-1), { type: 'bead.deleted', subject: convoy });
  t.ok(city.model.beads.has(a), 'its members keep their beads');
});

t.test(
  'a convoy’s detail and check: members oldest first, complete only when all of some are closed',
  async (t) => {
    const { city, a, b, convoy } = withConvoy();
    t.same(
      convoyCheck(city.model, convoy),
      { convoy_id: convoy, total: 0, closed: 0, complete: false },
      'empty',
    );
    for (const id of [b, a]) city.run({ type: 'SetConvoyMember', convoyId: convoy, id, member: true });
    const detail = convoyDetail(city.model, convoy)!;
    t.equal(detail.convoy?.id, convoy);
    t.same(
      (detail.children ?? []).map((c) => c.id),
      [a, b],
    );
    t.same(detail.progress, { total: 2, closed: 0 });
    city.close(a);
    t.same(convoyCheck(city.model, convoy), { convoy_id: convoy, total: 2, closed: 1, complete: false });
    city.close(b);
    t.same(convoyCheck(city.model, convoy), { convoy_id: convoy, total: 2, closed: 2, complete: true });
    t.equal(convoyDetail(city.model, a), undefined, 'not a convoy');
    t.equal(convoyCheck(city.model, 'cv-99'), undefined);
  },
);

t.test('the convoy list: open convoys only, newest first, paged', async (t) => {
  const city = beadCity('cv');
  const ids = ['one', 'two', 'three'].map(
    (title) => (city.run({ type: 'CreateConvoy', title, items: [] }) as { id: string }).id,
  );
  city.create({ title: 'not a convoy' });
  city.run({ type: 'CloseConvoy', id: ids[1]! });
  const page = listConvoys(city.model, 10);
  t.same(
    page.items.map((b) => b.id),
    [ids[2], ids[0]],
  );
  t.same(
    listConvoys(city.model, 1).items.map((b) => b.id),
    [ids[2]],
  );
});

t.test('work counts: open and in progress of work types, ready as the ready set', async (t) => {
  t.same([...NOT_WORK_TYPES].sort(), ['convergence', 'convoy', 'message']);
  const city = beadCity('wc');
  const blocker = city.create({ title: 'blocker' });
  const blocked = city.create({ title: 'blocked' });
  city.depend(blocked, blocker);
  const busy = city.create({ title: 'busy' });
  city.update(busy, { status: 'in_progress' });
  city.create({ title: 'a message', type: 'message' });
  city.create({ title: 'a convergence', type: 'convergence' });
  const convergingWork = city.create({ title: 'converging', type: 'convergence' });
  city.update(convergingWork, { status: 'in_progress' });
  city.run({ type: 'CreateConvoy', title: 'c', items: [] });
  const done = city.create({ title: 'done' });
  city.close(done);
  t.same(workCounts(city.model, Date.parse(CITY_NOW)), { in_progress: 1, ready: 2, open: 2 });
  t.same(mailCounts(city.model), { unread: 1, total: 1 }, 'a bead of type message is mail, unread');
});
