import t from 'tap';
import { call, cityHarness, createBead, forEachBackend } from './helpers.ts';

forEachBackend(t, async (t, env) => {
  t.test(
    'create answers 201 with the bead: a <prefix>-<n> id, open, type task, and X-GC-Index',
    async (t) => {
      const h = await cityHarness(t, env, { prefix: 'gt' });
      const res = await call(h, 'POST', '/beads', {
        title: 'Fix the pump',
        description: 'It leaks',
        priority: 1,
        labels: ['infra', 'infra', ''],
        metadata: { team: 'blue' },
        assignee: 'mayor',
        rig: 'east',
        defer_until: '2030-01-01T00:00:00Z',
      });
      t.equal(res.statusCode, 201);
      t.equal(res.headers['x-gc-index'], '1');
      t.equal(res.headers['x-gc-cache-age-s'], '0');
      const bead = res.json();
      t.match(bead, {
        id: 'gt-1',
        title: 'Fix the pump',
        status: 'open',
        issue_type: 'task',
        description: 'It leaks',
        priority: 1,
        labels: ['infra'],
        metadata: { team: 'blue', 'gc.rig': 'east' },
        assignee: 'mayor',
        defer_until: '2030-01-01T00:00:00Z',
        is_blocked: false,
      });
      t.equal(bead.created_at, bead.updated_at);
      const second = await createBead(t, h, { title: 'Second', type: 'bug' });
      t.equal(second.id, 'gt-2');
      t.equal(second.issue_type, 'bug');
    },
  );

  t.test(
    'create refuses bad bodies: 422 with errors[] for schema failures, 404 for a missing parent',
    async (t) => {
      const h = await cityHarness(t, env);
      for (const [body, location] of [
        [{}, 'body.title'],
        [{ title: '' }, 'body.title'],
        [{ title: 'x', color: 'red' }, 'body.color'],
        [{ title: 'x', priority: 'high' }, 'body.priority'],
        [{ title: 'x', defer_until: 'tomorrow' }, 'body.defer_until'],
        [{ title: 'x', priority: '1' }, 'body.priority'],
        [{ title: 'x', metadata: { n: 1 } }, 'body.metadata.n'],
        [{ title: 'x', labels: 'one' }, 'body.labels'],
      ] as const) {
        const res = await call(h, 'POST', '/beads', body);
        t.equal(res.statusCode, 422, JSON.stringify(body));
        t.match(res.headers['content-type'], /^application\/problem\+json/);
        t.match(res.json(), { status: 422, detail: 'validation failed', errors: [{ location }] }, location);
      }
      const orphan = await call(h, 'POST', '/beads', { title: 'x', parent: 'nope-1' });
      t.equal(orphan.statusCode, 404);
      t.equal(orphan.json().detail, 'not_found: parent bead nope-1 not found');
      const list = await call(h, 'GET', '/beads');
      t.equal(list.json().total, 0, 'nothing was written');
    },
  );

  t.test('get answers the bead with X-GC-Index, or 404', async (t) => {
    const h = await cityHarness(t, env);
    const bead = await createBead(t, h, { title: 'a' });
    const res = await call(h, 'GET', `/bead/${bead.id}`);
    t.equal(res.statusCode, 200);
    t.same(res.json(), bead);
    t.equal(res.headers['x-gc-index'], '1');
    const missing = await call(h, 'GET', '/bead/zz-9');
    t.equal(missing.statusCode, 404);
    t.same(missing.json(), { title: 'Not Found', status: 404, detail: 'not_found: bead zz-9 not found' });
  });

  t.test(
    'PATCH and POST update change fields, add and remove labels, merge metadata, set and clear parent',
    async (t) => {
      const h = await cityHarness(t, env);
      const parent = await createBead(t, h, { title: 'epic' });
      const bead = await createBead(t, h, {
        title: 'a',
        labels: ['x', 'y'],
        metadata: { k1: 'v1' },
        assignee: 'al',
      });
      for (const [method, path] of [
        ['PATCH', `/bead/${bead.id}`],
        ['POST', `/bead/${bead.id}/update`],
      ] as const) {
        const res = await call(h, method, path, {
          title: `renamed by ${method}`,
          description: 'now described',
          status: 'in_progress',
          type: 'feature',
          priority: 3,
          assignee: 'bo',
          labels: ['z'],
          remove_labels: ['x'],
          metadata: { k2: 'v2' },
          parent: parent.id,
        });
        t.equal(res.statusCode, 200, method);
        t.same(res.json(), { status: 'updated' });
        const got = (await call(h, 'GET', `/bead/${bead.id}`)).json();
        t.match(got, {
          title: `renamed by ${method}`,
          description: 'now described',
          status: 'in_progress',
          issue_type: 'feature',
          priority: 3,
          assignee: 'bo',
          labels: ['y', 'z'],
          metadata: { k1: 'v1', k2: 'v2' },
          parent: parent.id,
        });
        t.not(got.updated_at, bead.updated_at);
      }
      for (const clear of [null, '']) {
        await call(h, 'PATCH', `/bead/${bead.id}`, { parent: parent.id });
        const res = await call(h, 'PATCH', `/bead/${bead.id}`, { parent: clear, assignee: '' });
        t.equal(res.statusCode, 200);
        const got = (await call(h, 'GET', `/bead/${bead.id}`)).json();
        t.notOk('parent' in got, `parent ${JSON.stringify(clear)} clears it`);
        t.notOk('assignee' in got, 'an empty assignee clears it');
      }
    },
  );

  t.test('an update that changes nothing writes no event', async (t) => {
    const h = await cityHarness(t, env);
    const bead = await createBead(t, h, { title: 'a', labels: ['x'] });
    const before = h.service.service.index;
    const res = await call(h, 'PATCH', `/bead/${bead.id}`, { title: 'a', labels: ['x'], remove_labels: [] });
    t.equal(res.statusCode, 200);
    t.equal(h.service.service.index, before);
  });

  t.test(
    'update refuses: 404 unknown bead, 400 bad status or empty title/type, 404 missing parent, 409 parent cycle',
    async (t) => {
      const h = await cityHarness(t, env);
      const a = await createBead(t, h, { title: 'a' });
      const b = await createBead(t, h, { title: 'b', parent: a.id });
      const c = await createBead(t, h, { title: 'c', parent: b.id });
      const cases: Array<[string, Record<string, unknown>, number, string]> = [
        ['zz-1', { title: 'x' }, 404, 'not_found: bead zz-1 not found'],
        [a.id, { status: 'done' }, 400, 'invalid: unknown status "done"'],
        [a.id, { title: '' }, 400, 'invalid: title must not be empty'],
        [a.id, { type: '' }, 400, 'invalid: type must not be empty'],
        [a.id, { parent: 'zz-2' }, 404, 'not_found: parent bead zz-2 not found'],
        [a.id, { parent: c.id }, 409, `conflict: parent ${c.id} would make bead ${a.id} its own ancestor`],
        [a.id, { parent: a.id }, 409, `conflict: parent ${a.id} would make bead ${a.id} its own ancestor`],
      ];
      for (const [id, body, status, detail] of cases) {
        const res = await call(h, 'PATCH', `/bead/${id}`, body);
        t.equal(res.statusCode, status, detail);
        t.equal(res.json().detail, detail);
      }
      const unknownField = await call(h, 'POST', `/bead/${a.id}/update`, { colour: 'red' });
      t.equal(unknownField.statusCode, 422);
    },
  );

  t.test('close, then reopen; closing twice or reopening an open bead is 409', async (t) => {
    const h = await cityHarness(t, env);
    const bead = await createBead(t, h, { title: 'a' });
    t.same((await call(h, 'POST', `/bead/${bead.id}/reopen`)).json(), {
      title: 'Conflict',
      status: 409,
      detail: `conflict: bead ${bead.id} is not closed`,
    });
    const close = await call(h, 'POST', `/bead/${bead.id}/close`);
    t.equal(close.statusCode, 200);
    t.same(close.json(), { status: 'closed' });
    t.equal((await call(h, 'GET', `/bead/${bead.id}`)).json().status, 'closed');
    const again = await call(h, 'POST', `/bead/${bead.id}/close`);
    t.equal(again.statusCode, 409);
    t.equal(again.json().detail, `conflict: bead ${bead.id} is already closed`);
    const reopen = await call(h, 'POST', `/bead/${bead.id}/reopen`);
    t.same(reopen.json(), { status: 'reopened' });
    t.equal((await call(h, 'GET', `/bead/${bead.id}`)).json().status, 'open');
    t.equal((await call(h, 'POST', '/bead/zz-1/close')).statusCode, 404);
    t.equal((await call(h, 'POST', '/bead/zz-1/reopen')).statusCode, 404);
  });

  t.test('delete removes the bead and its id is never reused', async (t) => {
    const h = await cityHarness(t, env, { prefix: 'dl' });
    const bead = await createBead(t, h, { title: 'a' });
    const res = await call(h, 'DELETE', `/bead/${bead.id}`);
    t.equal(res.statusCode, 200);
    t.same(res.json(), { status: 'deleted' });
    t.equal((await call(h, 'GET', `/bead/${bead.id}`)).statusCode, 404);
    t.equal((await call(h, 'DELETE', `/bead/${bead.id}`)).statusCode, 404);
    t.equal((await createBead(t, h, { title: 'b' })).id, 'dl-2');
    await h.restart();
    t.equal((await createBead(t, h, { title: 'c' })).id, 'dl-3', 'not after a restart either');
  });

  t.test(
    'assign hooks a bead to an agent: 200 {status, assignee}; blank unhooks it, 409 closed, 404 unknown',
    async (t) => {
      const h = await cityHarness(t, env);
      const bead = await createBead(t, h, { title: 'a' });
      const res = await call(h, 'POST', `/bead/${bead.id}/assign`, { assignee: 'worker-1' });
      t.equal(res.statusCode, 200);
      t.same(res.json(), { status: 'assigned', assignee: 'worker-1' });
      t.ok(res.headers['x-gc-index']);
      t.equal((await call(h, 'GET', `/bead/${bead.id}`)).json().assignee, 'worker-1');
      for (const body of [{ assignee: '' }, { assignee: '  ' }, {}]) {
        await call(h, 'POST', `/bead/${bead.id}/assign`, { assignee: 'worker-2' });
        const blank = await call(h, 'POST', `/bead/${bead.id}/assign`, body);
        t.equal(blank.statusCode, 200, `${JSON.stringify(body)} clears the assignee`);
        t.same(blank.json(), { status: 'assigned', assignee: '' });
        t.notOk(
          'assignee' in (await call(h, 'GET', `/bead/${bead.id}`)).json(),
          'the bead has no assignee left',
        );
      }
      await call(h, 'POST', `/bead/${bead.id}/close`);
      t.equal((await call(h, 'POST', `/bead/${bead.id}/assign`, { assignee: 'x' })).statusCode, 409);
      t.equal((await call(h, 'POST', '/bead/zz-1/assign', { assignee: 'x' })).statusCode, 404);
    },
  );

  t.test('mutations without X-GC-Request are refused with 403 csrf', async (t) => {
    const h = await cityHarness(t, env);
    const res = await h.app.inject({ method: 'POST', url: `${h.base}/beads`, payload: { title: 'x' } });
    t.equal(res.statusCode, 403);
    t.equal(res.json().detail, 'csrf: X-GC-Request header required on mutation endpoints');
  });

  t.test('bead events carry the full bead: created, updated, closed, deleted', async (t) => {
    const h = await cityHarness(t, env);
    const bead = await createBead(t, h, { title: 'a', type: 'bug' });
    await call(h, 'PATCH', `/bead/${bead.id}`, { title: 'b' });
    await call(h, 'POST', `/bead/${bead.id}/close`);
    await call(h, 'DELETE', `/bead/${bead.id}`);
    const events = await h.journal.list();
    t.same(
      events.map((e) => [e.type, e.subject, e.actor]),
      [
        ['bead.created', bead.id, 'api'],
        ['bead.updated', bead.id, 'api'],
        ['bead.closed', bead.id, 'api'],
        ['bead.deleted', bead.id, 'api'],
      ],
    );
    for (const e of events) {
      t.match(e.payload, { bead: { id: bead.id, issue_type: 'bug', created_at: String } }, e.type);
      t.notOk('is_blocked' in (e.payload as { bead: object }).bead, 'computed fields stay out of the log');
    }
    t.equal((events[1]!.payload as { bead: { title: string } }).bead.title, 'b');
    t.equal((events[2]!.payload as { bead: { status: string } }).bead.status, 'closed');
  });

  t.test('an update to status closed writes bead.closed', async (t) => {
    const h = await cityHarness(t, env);
    const bead = await createBead(t, h, { title: 'a' });
    await call(h, 'PATCH', `/bead/${bead.id}`, { status: 'closed' });
    const last = (await h.journal.list({ order: 'desc', limit: 1 }))[0]!;
    t.equal(last.type, 'bead.closed');
  });
});
