import t from 'tap';
import { call, cityHarness, createBead, forEachBackend } from './helpers.ts';

forEachBackend(t, async (t, env) => {
  t.test(
    'create answers the convoy bead (201) and makes the items its members; get shows progress',
    async (t) => {
      const h = await cityHarness(t, env);
      const a = await createBead(t, h, { title: 'a' });
      const b = await createBead(t, h, { title: 'b' });
      const res = await call(h, 'POST', '/convoys', {
        title: 'Release',
        items: [a.id, b.id, a.id],
        rig: 'east',
      });
      t.equal(res.statusCode, 201);
      t.ok(res.headers['x-gc-index']);
      const convoy = res.json();
      t.match(convoy, {
        title: 'Release',
        issue_type: 'convoy',
        status: 'open',
        metadata: { 'gc.rig': 'east' },
      });
      const got = await call(h, 'GET', `/convoy/${convoy.id}`);
      t.equal(got.statusCode, 200);
      t.ok(got.headers['x-gc-index']);
      const detail = got.json();
      t.equal(detail.convoy.id, convoy.id);
      t.same(
        detail.children.map((c: { id: string }) => c.id),
        [a.id, b.id],
      );
      t.same(detail.progress, { total: 2, closed: 0 });
      await call(h, 'POST', `/bead/${a.id}/close`);
      t.same((await call(h, 'GET', `/convoy/${convoy.id}`)).json().progress, { total: 2, closed: 1 });
      const types = (await h.journal.list()).slice(2).map((e) => [e.type, e.subject]);
      t.same(types.slice(0, 4), [
        ['bead.created', convoy.id],
        ['bead.updated', a.id],
        ['bead.updated', b.id],
        ['convoy.created', convoy.id],
      ]);
      const created = (await h.journal.list({ type: 'convoy.created' }))[0]!;
      t.same(created.payload, {}, 'convoy.created has no payload, as upstream');
      const empty = await call(h, 'POST', '/convoys', { title: 'Empty' });
      t.equal(empty.statusCode, 201);
      t.same((await call(h, 'GET', `/convoy/${empty.json().id}`)).json().progress, { total: 0, closed: 0 });
    },
  );

  t.test('create refuses a missing item with 404 and writes nothing; bad bodies are 422', async (t) => {
    const h = await cityHarness(t, env);
    const a = await createBead(t, h, { title: 'a' });
    const res = await call(h, 'POST', '/convoys', { title: 'c', items: [a.id, 'zz-1'] });
    t.equal(res.statusCode, 404);
    t.equal(res.json().detail, 'not_found: bead zz-1 not found');
    t.equal(h.service.service.index, 1, 'nothing written');
    t.equal((await call(h, 'POST', '/convoys', { items: [] })).statusCode, 422);
    t.equal((await call(h, 'POST', '/convoys', { title: '' })).statusCode, 422);
  });

  t.test(
    'add and remove re-parent items; 404 unknown convoy or item, 400 not a convoy or not a member',
    async (t) => {
      const h = await cityHarness(t, env);
      const convoy = (await call(h, 'POST', '/convoys', { title: 'c' })).json();
      const other = (await call(h, 'POST', '/convoys', { title: 'other' })).json();
      const a = await createBead(t, h, { title: 'a' });
      const b = await createBead(t, h, { title: 'b' });
      const add = await call(h, 'POST', `/convoy/${convoy.id}/add`, { items: [a.id, b.id] });
      t.equal(add.statusCode, 200);
      t.same(add.json(), { status: 'added' });
      t.equal((await call(h, 'GET', `/bead/${a.id}`)).json().parent, convoy.id);
      t.equal((await call(h, 'POST', `/convoy/${other.id}/add`, { items: [b.id] })).statusCode, 200);
      t.equal(
        (await call(h, 'GET', `/bead/${b.id}`)).json().parent,
        other.id,
        'adding moves a bead between convoys',
      );
      const before = h.service.service.index;
      t.equal((await call(h, 'POST', `/convoy/${convoy.id}/add`, { items: [a.id] })).statusCode, 200);
      t.equal(h.service.service.index, before, 'adding a member again writes nothing');
      const notMember = await call(h, 'POST', `/convoy/${convoy.id}/remove`, { items: [a.id, b.id] });
      t.equal(notMember.statusCode, 400);
      t.equal(notMember.json().detail, `invalid: bead ${b.id} is not in convoy ${convoy.id}`);
      t.equal(
        (await call(h, 'GET', `/bead/${a.id}`)).json().parent,
        convoy.id,
        'a refused remove removes nothing',
      );
      const remove = await call(h, 'POST', `/convoy/${convoy.id}/remove`, { items: [a.id] });
      t.same(remove.json(), { status: 'removed' });
      t.notOk('parent' in (await call(h, 'GET', `/bead/${a.id}`)).json());
      t.equal((await call(h, 'POST', `/convoy/${convoy.id}/add`, {})).statusCode, 200, 'no items is a no-op');
      for (const [path, body, status, detail] of [
        ['/convoy/zz-1/add', { items: [a.id] }, 404, 'not_found: convoy zz-1 not found'],
        [`/convoy/${convoy.id}/add`, { items: ['zz-2'] }, 404, 'not_found: bead zz-2 not found'],
        [`/convoy/${a.id}/add`, { items: [b.id] }, 400, `invalid: bead ${a.id} is not a convoy`],
        [
          `/convoy/${convoy.id}/add`,
          { items: [convoy.id] },
          400,
          `invalid: convoy ${convoy.id} cannot contain itself`,
        ],
        ['/convoy/zz-1/remove', { items: [a.id] }, 404, 'not_found: convoy zz-1 not found'],
        [`/convoy/${convoy.id}/remove`, { items: ['zz-2'] }, 404, 'not_found: bead zz-2 not found'],
      ] as const) {
        const res = await call(h, 'POST', path, body);
        t.equal(res.statusCode, status, path);
        t.equal(res.json().detail, detail);
      }
    },
  );

  t.test(
    'check reports completion; close and delete the convoy; list shows open convoys newest first',
    async (t) => {
      const h = await cityHarness(t, env);
      const a = await createBead(t, h, { title: 'a' });
      const convoy = (await call(h, 'POST', '/convoys', { title: 'c', items: [a.id] })).json();
      const second = (await call(h, 'POST', '/convoys', { title: 'd' })).json();
      const check = await call(h, 'GET', `/convoy/${convoy.id}/check`);
      t.equal(check.statusCode, 200);
      t.ok(check.headers['x-gc-index']);
      t.same(check.json(), { convoy_id: convoy.id, total: 1, closed: 0, complete: false });
      await call(h, 'POST', `/bead/${a.id}/close`);
      t.same((await call(h, 'GET', `/convoy/${convoy.id}/check`)).json(), {
        convoy_id: convoy.id,
        total: 1,
        closed: 1,
        complete: true,
      });
      t.equal(
        (await call(h, 'GET', `/convoy/${second.id}/check`)).json().complete,
        false,
        'an empty convoy is not complete',
      );
      const list = await call(h, 'GET', '/convoys');
      t.equal(list.statusCode, 200);
      t.same(
        list.json().items.map((c: { id: string }) => c.id),
        [second.id, convoy.id],
      );
      const paged = (await call(h, 'GET', '/convoys?limit=1')).json();
      t.equal(paged.total, 2);
      t.same(
        (await call(h, 'GET', `/convoys?limit=1&cursor=${paged.next_cursor}`)).json().items[0].id,
        convoy.id,
      );
      t.equal((await call(h, 'GET', '/convoys?cursor=bad')).statusCode, 400);
      const close = await call(h, 'POST', `/convoy/${convoy.id}/close`);
      t.same(close.json(), { status: 'closed' });
      t.equal((await call(h, 'POST', `/convoy/${convoy.id}/close`)).statusCode, 200, 'closing twice is fine');
      t.same(
        (await call(h, 'GET', '/convoys')).json().items.map((c: { id: string }) => c.id),
        [second.id],
      );
      t.same(
        (await h.journal.list({ type: 'convoy.closed' })).map((e) => e.subject),
        [convoy.id],
        'one convoy.closed',
      );
      const del = await call(h, 'DELETE', `/convoy/${second.id}`);
      t.same(del.json(), { status: 'deleted' });
      t.equal((await call(h, 'GET', `/convoy/${second.id}`)).statusCode, 404);
      for (const [method, path, status] of [
        ['GET', '/convoy/zz-1', 404],
        ['GET', '/convoy/zz-1/check', 404],
        ['POST', '/convoy/zz-1/close', 404],
        ['DELETE', '/convoy/zz-1', 404],
        ['GET', `/convoy/${a.id}`, 400],
        ['GET', `/convoy/${a.id}/check`, 400],
        ['POST', `/convoy/${a.id}/close`, 400],
        ['DELETE', `/convoy/${a.id}`, 400],
      ] as const) {
        t.equal((await call(h, method, path)).statusCode, status, `${method} ${path}`);
      }
    },
  );
});
