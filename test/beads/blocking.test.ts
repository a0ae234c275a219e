import t from 'tap';
import { call, cityHarness, createBead, forEachBackend, nextWait } from './helpers.ts';

forEachBackend(t, async (t, env) => {
  t.test('a blocking list on a real socket answers as soon as the city index passes `index`', async (t) => {
    const h = await cityHarness(t, env);
    await createBead(t, h, { title: 'first' });
    const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const index = h.service.service.index;
    const started = Date.now();
    const waiting = nextWait(h);
    const pending = fetch(`${address}${h.base}/beads?index=${index}&wait=20s`);
    t.ok(await waiting, 'the query blocks before the change');
    await createBead(t, h, { title: 'second' });
    const res = await pending;
    const elapsed = Date.now() - started;
    t.equal(res.status, 200);
    t.ok(elapsed < 5000, `answered after ${elapsed} ms, not after the wait`);
    t.ok(Number(res.headers.get('x-gc-index')) > index, 'X-GC-Index moved past index');
    const body = (await res.json()) as { items: Array<{ title: string }> };
    t.equal(body.items[0]?.title, 'second', 'the answer includes the change it waited for');
  });

  t.test('any city event wakes a blocking query, not only bead events', async (t) => {
    const h = await cityHarness(t, env);
    const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const waiting = nextWait(h);
    const pending = fetch(`${address}${h.base}/beads?index=0&wait=20s`);
    t.ok(await waiting, 'the query blocks before the event');
    await h.journal.append({ type: 'session.woke', actor: 'test', payload: {} });
    const res = await pending;
    t.equal(res.status, 200);
    t.equal(res.headers.get('x-gc-index'), '1');
  });

  t.test(
    'a blocking query whose index has passed answers at once; one with nothing new waits `wait`',
    async (t) => {
      const h = await cityHarness(t, env);
      await createBead(t, h, { title: 'a' });
      const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
      let started = Date.now();
      const passed = await fetch(`${address}${h.base}/beads?index=0&wait=20s`);
      t.equal(passed.status, 200);
      t.ok(Date.now() - started < 2000);
      started = Date.now();
      const quiet = await fetch(`${address}${h.base}/beads?index=1&wait=300ms`);
      const elapsed = Date.now() - started;
      t.equal(quiet.status, 200);
      t.ok(elapsed >= 280 && elapsed < 3000, `waited ${elapsed} ms`);
      t.equal(quiet.headers.get('x-gc-index'), '1');
      const gone = new AbortController();
      const waiting = nextWait(h);
      const abandoned = fetch(`${address}${h.base}/beads?index=1&wait=30s`, { signal: gone.signal });
      t.ok(await waiting, 'the query blocks');
      gone.abort();
      await t.rejects(abandoned, 'a client may give up on a blocking query');
      t.equal((await call(h, 'GET', '/beads')).statusCode, 200, 'and the server carries on');
    },
  );

  t.test('ready, mail and convoys lists block on the index too', async (t) => {
    const h = await cityHarness(t, env);
    for (const path of ['/beads/ready', '/mail', '/convoys']) {
      const index = h.service.service.index;
      const waiting = nextWait(h);
      const pending = call(h, 'GET', `${path}?index=${index}&wait=20s`);
      t.ok(await waiting, `${path} blocks before the change`);
      await createBead(t, h, { title: `wake ${path}` });
      const res = await pending;
      t.equal(res.statusCode, 200, path);
      t.ok(Number(res.headers['x-gc-index']) > index, `${path} answered after the change`);
    }
  });

  t.test('a bad index or wait is a 422 naming each parameter, on every list', async (t) => {
    const h = await cityHarness(t, env);
    for (const path of ['/beads', '/beads/ready', '/mail', '/convoys']) {
      const res = await call(h, 'GET', `${path}?index=abc&wait=5d`);
      t.equal(res.statusCode, 422, path);
      t.same(res.json().errors, [
        { location: 'query.index', message: 'index must be a non-negative integer', value: 'abc' },
        {
          location: 'query.wait',
          message: 'wait must be a positive Go duration string (e.g. 30s)',
          value: '5d',
        },
      ]);
    }
    for (const query of ['index=-1', 'index=1.5', 'index=99999999999999999999']) {
      t.equal((await call(h, 'GET', `/beads?${query}`)).statusCode, 422, query);
    }
    for (const wait of ['5', '5d', '-1s', 'abc', '0']) {
      const res = await call(h, 'GET', `/beads?index=0&wait=${wait}`);
      t.equal(res.statusCode, 422, wait);
      t.equal(res.json().errors[0].location, 'query.wait');
    }
  });
});
