import t from 'tap';
import { memoryApp } from '../helpers/app.ts';

t.test('every response carries a 16-hex X-GC-Request-Id, errors and unknown routes included', async (t) => {
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  for (const url of ['/health', '/no/such/route']) {
    const res = await app.inject({ url });
    t.match(res.headers['x-gc-request-id'], /^[0-9a-f]{16}$/, url);
  }
  const a = await app.inject({ url: '/health' });
  const b = await app.inject({ url: '/health' });
  t.not(a.headers['x-gc-request-id'], b.headers['x-gc-request-id'], 'ids are not reused');
});

t.test('an unknown route is a 404 Problem Details', async (t) => {
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  const res = await app.inject({ url: '/v0/nope' });
  t.equal(res.statusCode, 404);
  t.match(res.headers['content-type'], /^application\/problem\+json/);
  t.match(res.json(), { status: 404, title: 'Not Found', detail: /^not_found: / });
});

t.test('a mutation without X-GC-Request is refused with 403 csrf', async (t) => {
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    for (const header of [undefined, '', '   ']) {
      const res = await app.inject({
        method,
        url: '/v0/city',
        headers: header === undefined ? {} : { 'x-gc-request': header },
        payload: {},
      });
      t.equal(res.statusCode, 403, `${method} with header ${JSON.stringify(header)}`);
      t.same(res.json(), {
        title: 'Forbidden',
        status: 403,
        detail: 'csrf: X-GC-Request header required on mutation endpoints',
      });
    }
  }
  const get = await app.inject({ url: '/health' });
  t.equal(get.statusCode, 200, 'reads need no header');
});

t.test('the svc proxy is exempt from the CSRF check', async (t) => {
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/v0/city/x/svc/thing' });
  t.not(res.statusCode, 403);
});

t.test('read-only mode refuses every mutation with 403 read_only', async (t) => {
  const { app } = await memoryApp({ readOnly: true });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/v0/city', headers: { 'x-gc-request': '1' } });
  t.equal(res.statusCode, 403);
  t.equal(res.json().detail, 'read_only: mutations disabled: server bound to non-localhost address');
  t.equal((await app.inject({ url: '/health' })).statusCode, 200, 'reads still work');
});

t.test('CORS answers loopback origins only, and OPTIONS is always 204', async (t) => {
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  for (const origin of ['http://localhost:3000', 'https://127.0.0.1', 'http://[::1]:8080']) {
    const res = await app.inject({ url: '/health', headers: { origin } });
    t.equal(res.headers['access-control-allow-origin'], origin, origin);
    t.match(res.headers['access-control-expose-headers'], /X-GC-Index/);
  }
  const foreign = await app.inject({ url: '/health', headers: { origin: 'http://evil.example' } });
  t.equal(foreign.statusCode, 200, 'a foreign origin is still served');
  t.notOk(foreign.headers['access-control-allow-origin'], 'but gets no CORS headers');
  const pre = await app.inject({
    method: 'OPTIONS',
    url: '/v0/city',
    headers: { origin: 'http://evil.example' },
  });
  t.equal(pre.statusCode, 204);
  t.equal(pre.body, '');
});

t.test('a body that is not JSON is a 400 problem', async (t) => {
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  app.post('/echo', async (req) => req.body ?? null);
  const res = await app.inject({
    method: 'POST',
    url: '/echo',
    headers: { 'x-gc-request': '1', 'content-type': 'application/json' },
    payload: '{nope',
  });
  t.equal(res.statusCode, 400);
  t.match(res.json(), { status: 400, detail: /^invalid: / });
});
