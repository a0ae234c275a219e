import t from 'tap';
import { call, cityHarness, createBead, forEachBackend } from './helpers.ts';

forEachBackend(t, async (t, env) => {
  t.test(
    'list filters by status, type, label, assignee and rig; closed beads only with all or status',
    async (t) => {
      const h = await cityHarness(t, env);
      const a = await createBead(t, h, {
        title: 'a',
        type: 'bug',
        labels: ['x'],
        assignee: 'al',
        rig: 'east',
      });
      const b = await createBead(t, h, { title: 'b', labels: ['x', 'y'], assignee: 'bo', rig: 'west' });
      const c = await createBead(t, h, { title: 'c', type: 'bug' });
      await call(h, 'PATCH', `/bead/${b.id}`, { status: 'in_progress' });
      await call(h, 'POST', `/bead/${c.id}/close`);
      const ids = async (query: string) => {
        const res = await call(h, 'GET', `/beads${query}`);
        t.equal(res.statusCode, 200, query);
        t.equal(res.headers['x-gc-index'], String(h.service.service.index));
        return (res.json().items as Array<{ id: string }>).map((i) => i.id);
      };
      t.same(await ids(''), [b.id, a.id], 'open beads, newest first');
      t.same(await ids('?all=true'), [c.id, b.id, a.id]);
      t.same(await ids('?status=closed'), [c.id], 'an explicit status=closed lists closed beads');
      t.same(await ids('?status=in_progress'), [b.id]);
      t.same(await ids('?type=bug'), [a.id]);
      t.same(await ids('?type=bug&all=true'), [c.id, a.id]);
      t.same(await ids('?label=x'), [b.id, a.id]);
      t.same(await ids('?label=y'), [b.id]);
      t.same(await ids('?assignee=al'), [a.id]);
      t.same(await ids('?rig=west'), [b.id]);
      t.same(await ids('?rig=west&assignee=al'), []);
      t.same(await ids('?label=nope'), []);
      const bad = await call(h, 'GET', '/beads?bogus=1');
      t.equal(bad.statusCode, 422, 'unknown query parameters are refused');
    },
  );

  t.test('list pages newest first with next_cursor and total, whatever writes come in between', async (t) => {
    const h = await cityHarness(t, env);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await createBead(t, h, { title: `b${i}` })).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await call(h, 'GET', `/beads?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      const body = res.json();
      t.equal(body.total, 7 + (pages > 0 ? 1 : 0), 'total counts every match');
      seen.push(...body.items.map((i: { id: string }) => i.id));
      cursor = body.next_cursor;
      if (pages++ === 0) await createBead(t, h, { title: 'late' }); // newer than the cursor: not on later pages
    } while (cursor);
    t.same(seen, [...ids].reverse(), 'every bead exactly once, newest first');
    t.equal(pages, 3);
    const first = (await call(h, 'GET', '/beads')).json();
    t.equal(first.items.length, 8, 'default page size 50');
    t.notOk(first.next_cursor, 'no cursor on the last page');
    for (const cursor of ['garbage', 'djE6MA', '!!', Buffer.from('v1:12x').toString('base64url')]) {
      const res = await call(h, 'GET', `/beads?cursor=${cursor}`);
      t.equal(res.statusCode, 400, cursor);
      t.equal(res.json().detail, 'cursor is not a valid pagination token; re-fetch the first page');
    }
    t.equal((await call(h, 'GET', '/beads?limit=-1')).statusCode, 422);
  });

  t.test('ready: open, actionable types, every blocking dependency closed, not deferred', async (t) => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const h = await cityHarness(t, env, { clock: () => new Date(now) });
    const plain = await createBead(t, h, { title: 'plain', priority: 2 });
    const urgent = await createBead(t, h, { title: 'urgent', priority: 0 });
    const blocker = await createBead(t, h, { title: 'blocker' });
    const blocked = await createBead(t, h, { title: 'blocked' });
    const waiting = await createBead(t, h, { title: 'waiting' });
    const related = await createBead(t, h, { title: 'related' });
    const deferred = await createBead(t, h, { title: 'later', defer_until: '2030-01-02T00:00:00Z' });
    const busy = await createBead(t, h, { title: 'busy' });
    await call(h, 'PATCH', `/bead/${busy.id}`, { status: 'in_progress' });
    for (const type of [
      'message',
      'molecule',
      'gate',
      'convoy',
      'session',
      'agent',
      'role',
      'rig',
      'merge-request',
    ]) {
      await createBead(t, h, { title: `bookkeeping ${type}`, type });
    }
    await call(h, 'POST', `/bead/${blocked.id}/dependencies`, { depends_on_id: blocker.id });
    await call(h, 'POST', `/bead/${waiting.id}/dependencies`, {
      depends_on_id: blocker.id,
      type: 'waits-for',
    });
    await call(h, 'POST', `/bead/${related.id}/dependencies`, {
      depends_on_id: blocker.id,
      type: 'relates-to',
    });
    const ready = async () => {
      const res = await call(h, 'GET', '/beads/ready');
      t.equal(res.statusCode, 200);
      t.ok(res.headers['x-gc-index']);
      const body = res.json();
      t.equal(body.total, body.items.length);
      return (body.items as Array<{ id: string }>).map((i) => i.id);
    };
    t.same(await ready(), [urgent.id, plain.id, blocker.id, related.id], 'by priority, then oldest first');
    const blockedBead = (await call(h, 'GET', `/bead/${blocked.id}`)).json();
    t.equal(blockedBead.is_blocked, true);
    await call(h, 'POST', `/bead/${blocker.id}/close`);
    t.same(
      await ready(),
      [urgent.id, plain.id, blocked.id, waiting.id, related.id],
      'a closed blocker releases',
    );
    now = Date.parse('2030-01-03T00:00:00Z');
    t.same(
      await ready(),
      [urgent.id, plain.id, blocked.id, waiting.id, related.id, deferred.id],
      'defer_until passed',
    );
    await call(h, 'DELETE', `/bead/${plain.id}`);
    t.notOk((await ready()).includes(plain.id));
  });

  t.test(
    'dependencies: typed edges, idempotent adds, 404 for unknown beads, 409 for ordering cycles',
    async (t) => {
      const h = await cityHarness(t, env);
      const [a, b, c] = [
        await createBead(t, h, { title: 'a' }),
        await createBead(t, h, { title: 'b' }),
        await createBead(t, h, { title: 'c' }),
      ];
      const add = (from: string, to: string, type?: string) =>
        call(h, 'POST', `/bead/${from}/dependencies`, { depends_on_id: to, ...(type ? { type } : {}) });
      const res = await add(a.id, b.id);
      t.equal(res.statusCode, 200);
      t.match(res.json(), {
        id: a.id,
        dependencies: [{ issue_id: a.id, depends_on_id: b.id, type: 'blocks' }],
        is_blocked: true,
      });
      t.equal((await add(a.id, b.id)).json().dependencies.length, 1, 'adding an edge twice keeps one');
      t.equal((await add(b.id, c.id, 'waits-for')).statusCode, 200);
      for (const [from, to, type] of [
        [c.id, a.id, 'blocks'],
        [c.id, a.id, 'parent-child'],
        [c.id, b.id, 'conditional-blocks'],
        [a.id, a.id, 'relates-to'],
      ] as const) {
        const cycle = await add(from, to, type);
        t.equal(cycle.statusCode, 409, `${from} -> ${to} (${type})`);
        t.equal(cycle.json().detail, `conflict: dependency ${from} -> ${to} (${type}) would create a cycle`);
      }
      t.equal((await add(c.id, a.id, 'relates-to')).statusCode, 200, 'non-ordering kinds may loop');
      t.equal((await add(a.id, 'zz-1')).statusCode, 404);
      t.equal((await add('zz-1', a.id)).statusCode, 404);
      t.equal((await add(a.id, b.id, 'Not A Kind')).statusCode, 422);
      const removed = await call(h, 'DELETE', `/bead/${a.id}/dependencies/${b.id}`);
      t.equal(removed.statusCode, 200);
      t.notOk('dependencies' in removed.json());
      t.equal((await call(h, 'DELETE', `/bead/${a.id}/dependencies/${b.id}`)).statusCode, 404);
      t.equal((await call(h, 'DELETE', `/bead/${c.id}/dependencies/${a.id}?type=blocks`)).statusCode, 404);
      t.equal(
        (await call(h, 'DELETE', `/bead/${c.id}/dependencies/${a.id}?type=relates-to`)).statusCode,
        200,
      );
      t.equal((await add(c.id, a.id)).statusCode, 200, 'with a -> b gone, c -> a no longer loops');
    },
  );

  t.test(
    "deps lists a bead's children oldest first, then attached molecules; 404 for an unknown bead",
    async (t) => {
      const h = await cityHarness(t, env);
      const molecule = await createBead(t, h, { title: 'mol', type: 'molecule' });
      const root = await createBead(t, h, { title: 'root', metadata: { molecule_id: molecule.id } });
      const one = await createBead(t, h, { title: 'one', parent: root.id });
      const two = await createBead(t, h, { title: 'two', parent: root.id });
      await call(h, 'POST', `/bead/${one.id}/close`);
      const res = await call(h, 'GET', `/bead/${root.id}/deps`);
      t.equal(res.statusCode, 200);
      t.ok(res.headers['x-gc-index']);
      t.same(
        res.json().children.map((c: { id: string }) => c.id),
        [one.id, two.id, molecule.id],
      );
      t.same((await call(h, 'GET', `/bead/${two.id}/deps`)).json(), { children: [] });
      t.equal((await call(h, 'GET', '/bead/zz-1/deps')).statusCode, 404);
    },
  );

  t.test('graph answers the root, the beads rooted at it (closed too) and their edges', async (t) => {
    const h = await cityHarness(t, env);
    const root = await createBead(t, h, { title: 'workflow' });
    const step1 = await createBead(t, h, { title: 's1', metadata: { 'gc.root_bead_id': root.id } });
    const step2 = await createBead(t, h, { title: 's2', metadata: { 'gc.root_bead_id': root.id } });
    const outsider = await createBead(t, h, { title: 'other' });
    await call(h, 'POST', `/bead/${step2.id}/dependencies`, { depends_on_id: step1.id });
    await call(h, 'POST', `/bead/${step2.id}/dependencies`, { depends_on_id: outsider.id });
    await call(h, 'POST', `/bead/${step1.id}/close`);
    const res = await call(h, 'GET', `/beads/graph/${root.id}`);
    t.equal(res.statusCode, 200);
    const graph = res.json();
    t.equal(graph.root.id, root.id);
    t.same(
      graph.beads.map((b: { id: string }) => b.id),
      [root.id, step1.id, step2.id],
    );
    t.same(graph.deps, [{ from: step1.id, to: step2.id, kind: 'blocks' }], 'edges among the graph only');
    t.equal((await call(h, 'GET', '/beads/graph/zz-1')).statusCode, 404);
  });

  t.test(
    'graph takes in the children under the root (grandchildren too) with their parent-child edges',
    async (t) => {
      const h = await cityHarness(t, env);
      const root = await createBead(t, h, { title: 'epic' });
      const child = await createBead(t, h, { title: 'child', parent: root.id });
      const grandchild = await createBead(t, h, { title: 'grandchild', parent: child.id });
      await createBead(t, h, { title: 'other' });
      const graph = (await call(h, 'GET', `/beads/graph/${root.id}`)).json();
      t.same(
        graph.beads.map((b: { id: string }) => b.id),
        [root.id, child.id, grandchild.id],
      );
      t.same(graph.deps, [
        { from: root.id, to: child.id, kind: 'parent-child' },
        { from: child.id, to: grandchild.id, kind: 'parent-child' },
      ]);
    },
  );

  t.test(
    'routes answer 404 for a city that is not running and 503 while its bead store is not started',
    async (t) => {
      const h = await cityHarness(t, env);
      const res = await h.app.inject({ url: '/v0/city/nowhere/beads' });
      t.equal(res.statusCode, 404);
      t.equal(res.json().detail, 'not_found: city not found or not running: nowhere');
      h.deps.cities.set({ name: 'bare', path: '', journal: h.journal, running: true, services: {} });
      for (const url of ['/v0/city/bare/beads', '/v0/city/bare/mail', '/v0/city/bare/convoys']) {
        const bare = await h.app.inject({ url });
        t.equal(bare.statusCode, 503, url);
        t.equal(bare.json().detail, 'unavailable: bead store is not started for city bare');
      }
      h.deps.cities.update(h.name, { running: false });
      t.equal((await call(h, 'GET', '/beads')).statusCode, 404, 'a starting city is not served');
    },
  );
});
