/**
 * Pages, children and workflow graphs (machines/beads/paging.ts, queries.ts): the keyset cursor codec, page
 * sizes, pages over few and over many matches (past the sort limit), with and without a known total, and
 * a bead's children and its workflow graph. Expected values worked out by hand.
 */
import t from 'tap';
import {
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  encodeCursor,
  MAX_PAGE_SIZE,
  pageOf,
  pageSize,
  smallest,
} from '../../machines/beads/paging.ts';
import { childrenOf, graphOf, listBeads } from '../../machines/beads/queries.ts';
import { beadCity } from '../helpers/beadCity.ts';

t.test('cursors: v1:<ordinal> in base64url, nothing else', async (t) => {
  t.equal(encodeCursor(42), Buffer.from('v1:42').toString('base64url'));
  t.equal(decodeCursor(encodeCursor(42)), 42);
  t.equal(decodeCursor(encodeCursor(1_234_567_890_123_456)), 1_234_567_890_123_456, '16 digits');
  const raw = (s: string) => Buffer.from(s).toString('base64url');
  for (const bad of ['v1:0', 'v1:042', 'v2:42', 'v1:42x', ' v1:42', 'v1:12345678901234567', 'v1:'])
    t.equal(decodeCursor(raw(bad)), undefined, bad);
  t.equal(decodeCursor(`${encodeCursor(42)}=`), undefined, 'padding is not base64url');
  t.equal(decodeCursor('a+b/'), undefined);
  t.equal(decodeCursor(''), undefined);
});

t.test('page sizes: the default for 0 or none, the cap above it', async (t) => {
  t.equal(DEFAULT_PAGE_SIZE, 50);
  t.equal(MAX_PAGE_SIZE, 1000);
  t.same([undefined, 0, 1, 999, 1000, 1001, 5000].map(pageSize), [50, 50, 1, 999, 1000, 1000, 1000]);
});

t.test('the smallest candidate set, none when none is given', async (t) => {
  const a = new Set(['1', '2', '3']);
  const b = new Set(['1']);
  t.equal(smallest([a, undefined, b]), b);
  t.equal(smallest([b, new Set(['x'])]), b, 'the first of equal sizes');
  t.equal(smallest([undefined]), undefined);
  t.equal(smallest([]), undefined);
});

t.test('pages over many matches (past the sort limit) and few, newest first, with cursors', async (t) => {
  const city = beadCity('pg');
  const ids: string[] = [];
  for (let i = 0; i < 4200; i++)
    ids.push(city.create({ title: `b${i}`, ...(i % 2 === 0 ? { type: 'bug' } : {}) }));
  const newest = [...ids].reverse();
  const bugs = newest.filter((_, i) => i % 2 === 1);
  const all = listBeads(city.model, {}, 3);
  t.same(
    all.items.map((b) => b.id),
    newest.slice(0, 3),
  );
  t.equal(all.total, 4200);
  const next = listBeads(city.model, {}, 3, decodeCursor(all.nextCursor!));
  t.same(
    next.items.map((b) => b.id),
    newest.slice(3, 6),
    'the cursor continues after the last served',
  );
  const bugPage = listBeads(city.model, { type: 'bug' }, 2);
  t.same(
    bugPage.items.map((b) => b.id),
    bugs.slice(0, 2),
  );
  t.equal(bugPage.total, 2100);
  // Many candidates and a test on the bead: counted in one pass, paged by walking the creation order.
  const walked = pageOf(city.model, {
    candidates: city.model.indexes.byStatus.get('open'),
    matches: (b) => b.issue_type === 'bug',
    map: (e) => e.bead.id,
    size: 2,
  });
  t.same(walked, {
    items: bugs.slice(0, 2),
    total: 2100,
    nextCursor: encodeCursor(city.model.beads.get(bugs[1]!)!.ordinal),
  });
  const few = pageOf(city.model, {
    candidates: new Set([ids[5]!, ids[1]!, ids[9]!]),
    map: (e) => e.bead.id,
    size: 2,
  });
  t.same(few, {
    items: [ids[9], ids[5]],
    total: 3,
    nextCursor: encodeCursor(city.model.beads.get(ids[5]!)!.ordinal),
  });
  const last = pageOf(city.model, {
    candidates: new Set([ids[5]!, ids[1]!, ids[9]!]),
    map: (e) => e.bead.id,
    size: 2,
    before: city.model.beads.get(ids[5]!)!.ordinal,
  });
  t.same(last, { items: [ids[1]], total: 3 }, 'the last page has no cursor');
  const exact = pageOf(city.model, {
    candidates: new Set([ids[1]!, ids[2]!]),
    map: (e) => e.bead.id,
    size: 2,
  });
  t.notOk('nextCursor' in exact, 'a page that holds every match has no cursor');
  const knownTotal = pageOf(city.model, {
    candidates: undefined,
    map: (e) => e.bead.id,
    size: 1,
    total: 4200,
  });
  t.same(knownTotal, {
    items: [newest[0]],
    total: 4200,
    nextCursor: encodeCursor(city.model.beads.get(newest[0]!)!.ordinal),
  });
});

t.test('the list: closed beads only when asked for, by status or with all', async (t) => {
  const city = beadCity('ls');
  const a = city.create({ title: 'a', labels: ['x'] });
  const b = city.create({ title: 'b', labels: ['x'] });
  city.close(a);
  const ids = (filter: Parameters<typeof listBeads>[1]) =>
    listBeads(city.model, filter, 10).items.map((x) => x.id);
  t.same(ids({}), [b]);
  t.same(ids({ all: true }), [b, a]);
  t.same(ids({ status: 'closed' }), [a]);
  t.same(ids({ label: 'x' }), [b]);
  t.same(ids({ label: 'x', all: true }), [b, a]);
  t.same(ids({ label: 'x', status: 'closed' }), [a]);
  t.same(ids({ label: 'y', all: true }), []);
  t.equal(listBeads(city.model, { all: true }, 10).total, 2);
  t.equal(listBeads(city.model, {}, 10).total, 1);
});

t.test(
  'children: beads under it oldest first, then the molecules its metadata names, each once',
  async (t) => {
    const city = beadCity('ch');
    const parent = city.create({ title: 'p' });
    const c1 = city.create({ title: 'c1', parent });
    const molecule = city.create({ title: 'm', type: 'molecule' });
    const c2 = city.create({ title: 'c2', parent });
    city.update(parent, { metadata: { molecule_id: molecule, workflow_id: c1 } });
    t.same(
      childrenOf(city.model, parent)!.map((b) => b.id),
      [c1, c2, molecule],
    );
    t.equal(childrenOf(city.model, 'ch-99'), undefined);
    t.same(childrenOf(city.model, c2), []);
  },
);

t.test('a workflow graph: its root, every member and their edges, each once', async (t) => {
  const city = beadCity('wf');
  const root = city.create({ title: 'root' });
  const step1 = city.create({ title: 's1', metadata: { 'gc.root_bead_id': root } });
  const step2 = city.create({ title: 's2', metadata: { 'gc.root_bead_id': root } });
  const sub = city.create({ title: 'sub', parent: step1 });
  const outsider = city.create({ title: 'outside' });
  city.depend(step2, step1);
  city.depend(step2, outsider);
  city.depend(sub, step1, 'parent-child');
  const graph = graphOf(city.model, root)!;
  t.equal(graph.root.id, root);
  t.same(
    graph.beads.map((b) => b.id),
    [root, step1, step2, sub],
  );
  t.same(graph.deps, [
    { from: step1, to: step2, kind: 'blocks' },
    { from: step1, to: sub, kind: 'parent-child' },
  ]);
  t.equal(graphOf(city.model, 'wf-99'), undefined);
});
