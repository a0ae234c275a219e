/**
 * The bead's shape and the ready rule (machines/beads/beadShape.ts, ready.ts, cycles.ts, convoyView.ts):
 * the statuses, the canonical compact form, labels, RFC 3339 instants, which edges block and which order,
 * the bookkeeping types, and the order of the ready list. Expected values worked out by hand.
 */
import t from 'tap';
import {
  BEAD_STATUSES,
  BLOCKING_DEP_TYPES,
  BOOKKEEPING_TYPES,
  compactBead,
  isConvoy,
  isInstant,
  isReady,
  labelValue,
  ORDERING_DEP_TYPES,
  readyBeads,
  ROOT_KEY,
  uniqueLabels,
  type StoredBead,
} from '../../machines/beads/index.ts';
import { beadCity, CITY_NOW } from '../helpers/beadCity.ts';

const NOW = Date.parse(CITY_NOW);
const base = { id: 'x-1', title: 't', status: 'open', issue_type: 'task', created_at: CITY_NOW };

t.test('the statuses, the edge kinds and the bookkeeping types are upstream’s', async (t) => {
  t.same([...BEAD_STATUSES], ['open', 'in_progress', 'blocked', 'deferred', 'closed', 'pinned', 'hooked']);
  t.same([...BLOCKING_DEP_TYPES], ['blocks', 'waits-for', 'conditional-blocks']);
  t.same([...ORDERING_DEP_TYPES], ['blocks', 'waits-for', 'conditional-blocks', 'parent-child']);
  t.same(
    [...BOOKKEEPING_TYPES],
    ['merge-request', 'gate', 'molecule', 'message', 'session', 'agent', 'role', 'rig', 'convoy'],
  );
  t.equal(ROOT_KEY, 'gc.root_bead_id', 'the workflow root key formulas write and the root index reads');
});

t.test('the compact bead: empty optional fields left out, the rest in one order', async (t) => {
  const empty = compactBead({
    ...base,
    updated_at: '',
    description: '',
    assignee: '',
    labels: [],
    metadata: {},
    parent: '',
    defer_until: '',
    dependencies: [],
    from: '',
    ephemeral: false,
    needs: [],
    no_history: false,
    ref: '',
  });
  t.same(Object.keys(empty), ['id', 'title', 'status', 'issue_type', 'created_at']);
  const full = compactBead({
    ref: 'r',
    no_history: true,
    needs: ['n'],
    ephemeral: true,
    from: 'f',
    dependencies: [{ issue_id: 'x-1', depends_on_id: 'x-2', type: 'blocks' }],
    defer_until: '2031-01-01T00:00:00Z',
    parent: 'x-0',
    metadata: { k: 'v' },
    labels: ['l'],
    priority: 0,
    assignee: 'a',
    description: 'd',
    updated_at: CITY_NOW,
    ...base,
  });
  t.same(Object.keys(full), [
    'id',
    'title',
    'status',
    'issue_type',
    'created_at',
    'updated_at',
    'description',
    'assignee',
    'priority',
    'labels',
    'metadata',
    'parent',
    'defer_until',
    'dependencies',
    'from',
    'ephemeral',
    'needs',
    'no_history',
    'ref',
  ]);
  t.equal(full.priority, 0, 'priority 0 is kept');
});

t.test('labels: blanks and repeats dropped, first kept; a value after its prefix', async (t) => {
  t.same(uniqueLabels(['', 'b', 'a', 'b', '', 'a']), ['b', 'a']);
  const bead = { ...base, labels: ['x', 'thread:t-1', 'thread:t-2'] } as StoredBead;
  t.equal(labelValue(bead, 'thread:'), 't-1', 'the first label with the prefix, without it');
  t.equal(labelValue(bead, 'reply-to:'), undefined);
  t.equal(labelValue(base as StoredBead, 'thread:'), undefined, 'a bead without labels');
});

t.test('an RFC 3339 instant, exactly', async (t) => {
  for (const ok of [
    '2030-01-01T00:00:00Z',
    '2030-01-01t00:00:00z',
    '2030-01-01T00:00:00.123Z',
    '2030-01-01T00:00:00.5+02:00',
    '2030-01-01T00:00:00-11:30',
  ])
    t.equal(isInstant(ok), true, ok);
  for (const bad of [
    'x2030-01-01T00:00:00Z',
    '2030-01-01T00:00:00Zx',
    '2030-01-01T00:00:00.Z',
    '2030-01-01T00:00:00.aZ',
    '2030-01-01T00:00:00*02:00',
    '2030-01-01T00:00:00+2:00',
    '2030-01-01T00:00:00+ab:00',
    '2030-01-01T00:00:00+02:0',
    '2030-01-01T00:00:00+02:ab',
    '2030-01-01T00:00:00',
    '2030-13-45T00:00:00Z',
  ])
    t.equal(isInstant(bad), false, bad);
});

t.test(
  'blocking: an open target of a blocking edge holds a bead; closed, deleted or unrelated do not',
  async (t) => {
    const city = beadCity('rd');
    const target = city.create({ title: 'target' });
    for (const type of ['blocks', 'waits-for', 'conditional-blocks'])
      city.depend(city.create({ title: type }), target, type);
    const related = city.create({ title: 'related' });
    city.depend(related, target, 'related');
    const child = city.create({ title: 'child' });
    city.depend(child, target, 'parent-child');
    const ready = () => readyBeads(city.model, NOW).map((b) => b.title);
    t.same(ready().sort(), ['child', 'related', 'target'], 'parent-child orders but does not block');
    city.close(target);
    t.same(ready().sort(), ['blocks', 'child', 'conditional-blocks', 'related', 'waits-for']);
    const gone = city.create({ title: 'gone' });
    const waiting = city.create({ title: 'waiting' });
    city.depend(waiting, gone);
    t.notOk(ready().includes('waiting'));
    city.run({ type: 'DeleteBead', id: gone });
    t.ok(ready().includes('waiting'), 'a deleted blocker no longer blocks');
  },
);

t.test('ready: open only, not bookkeeping, not deferred past now', async (t) => {
  const city = beadCity('rd');
  const busy = city.create({ title: 'busy' });
  city.update(busy, { status: 'in_progress' });
  for (const type of [
    'gate',
    'molecule',
    'session',
    'agent',
    'role',
    'rig',
    'merge-request',
    'convoy',
    'message',
  ])
    city.create({ title: type, type });
  city.create({ title: 'later', defer_until: new Date(NOW + 1).toISOString() });
  city.create({ title: 'now', defer_until: new Date(NOW).toISOString() });
  city.create({ title: 'bug', type: 'bug' });
  t.same(
    readyBeads(city.model, NOW).map((b) => b.title),
    ['now', 'bug'],
  );
  t.equal(isReady(city.model, city.model.beads.get(busy)!.bead, NOW), false);
});

t.test('the ready list: by priority, 0 first and unset last, then oldest first; none blocked', async (t) => {
  const city = beadCity('rd');
  for (const [title, priority] of [
    ['none-1', undefined],
    ['p2', 2],
    ['p0', 0],
    ['none-2', undefined],
    ['p1-a', 1],
    ['p1-b', 1],
  ] as const)
    city.create({ title, ...(priority === undefined ? {} : { priority }) });
  const list = readyBeads(city.model, NOW);
  t.same(
    list.map((b) => b.title),
    ['p0', 'p1-a', 'p1-b', 'p2', 'none-1', 'none-2'],
  );
  t.ok(list.every((b) => b.is_blocked === false && typeof b.id === 'string'));
});

t.test(
  'cycles: waits-for and conditional-blocks order like blocks; a deleted bead ends a walk',
  async (t) => {
    const city = beadCity('cy');
    const [a, b, c] = ['a', 'b', 'c'].map((title) => city.create({ title }));
    city.depend(a!, b!, 'waits-for');
    t.equal(city.attempt({ type: 'AddDependency', id: b!, dependsOn: a!, depType: 'blocks' }).ok, false);
    city.depend(b!, c!, 'conditional-blocks');
    t.equal(city.attempt({ type: 'AddDependency', id: c!, dependsOn: a!, depType: 'blocks' }).ok, false);
    const d = city.create({ title: 'd' });
    city.depend(c!, d);
    city.run({ type: 'DeleteBead', id: d });
    const e = city.create({ title: 'e' });
    t.equal(city.attempt({ type: 'AddDependency', id: e, dependsOn: a!, depType: 'blocks' }).ok, true);
    t.equal(isConvoy(city.model, 'cy-404'), false, 'no bead is no convoy');
  },
);

t.test('the cycle walk visits each bead once, even on a lattice of diamonds', async (t) => {
  // 40 layers of two beads, each blocked by both of the next layer: 2^40 paths, 80 beads.
  const city = beadCity('la');
  const layers: string[][] = [];
  for (let i = 0; i < 40; i++)
    layers.push([city.create({ title: `a${i}` }), city.create({ title: `b${i}` })]);
  for (let i = 0; i < 39; i++)
    for (const from of layers[i]!) for (const to of layers[i + 1]!) city.depend(from, to);
  const outsider = city.create({ title: 'outsider' });
  t.equal(
    city.attempt({ type: 'AddDependency', id: outsider, dependsOn: layers[0]![0]!, depType: 'blocks' }).ok,
    true,
    'no cycle, and the walk returns (a re-walk would not, in any time)',
  );
});
