import { Writable } from 'node:stream';
import type { SupervisorConfig } from '../../actors/supervisor/supervisorConfig.ts';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { TOKEN_REDACTION } from '../../actors/runtime/logger.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { memoryApp } from '../helpers/app.ts';
import { openSse } from '../helpers/sse.ts';

/**
 * Issue #20, authentication across hosts: with GC_API_TOKEN set, reads, streams and mutations all need
 * the token (bearer header, or access_token / gc_token for EventSource clients); without it or with
 * another one the answer is a 401 problem and nothing changes. `/health` stays open for probes.
 */
const TOKEN = 's3cret-token-for-tests';

async function tokenApp(t: Test) {
  const { app, deps } = await memoryApp({ config: { apiToken: TOKEN } as SupervisorConfig });
  deps.cities.set({
    name: 'alpha',
    path: '/cities/alpha',
    journal: new MemoryJournal('alpha'),
    running: true,
    services: {},
  });
  t.teardown(() => app.close());
  return { app, deps };
}

t.test('reads, streams and mutations without the token are 401 problems and change nothing', async (t) => {
  const { app, deps } = await tokenApp(t);
  const journal = deps.cities.get('alpha')!.journal;
  const cases = [
    { method: 'GET' as const, url: '/v0/cities', headers: {} },
    { method: 'GET' as const, url: '/v0/city/alpha/events', headers: { authorization: 'Bearer wrong' } },
    { method: 'GET' as const, url: '/v0/events/stream', headers: { cookie: 'gc_token=nope' } },
    { method: 'GET' as const, url: '/v0/city/alpha/events/stream?access_token=nope', headers: {} },
    {
      method: 'POST' as const,
      url: '/v0/city/alpha/events',
      headers: { 'x-gc-request': '1', 'content-type': 'application/json', authorization: `Basic ${TOKEN}` },
      payload: { type: 'custom.x', actor: 'me' },
    },
  ];
  for (const c of cases) {
    const res = await app.inject(c);
    t.equal(res.statusCode, 401, `${c.method} ${c.url}`);
    t.match(res.headers['content-type'], /^application\/problem\+json/);
    t.match(res.json(), { status: 401, title: 'Unauthorized', detail: /^unauthorized: / });
    t.equal(res.headers['www-authenticate'], 'Bearer realm="gc"');
    t.notMatch(res.body, TOKEN, 'the answer never echoes the token');
  }
  t.equal(await journal.head(), 0, 'the refused mutation wrote nothing');
  const health = await app.inject({ url: '/health' });
  t.equal(health.statusCode, 200, '/health needs no token (load balancer probes)');
});

t.test(
  'the token is accepted as a bearer header, an access_token parameter or a gc_token cookie',
  async (t) => {
    const { app } = await tokenApp(t);
    const bearer = await app.inject({ url: '/v0/cities', headers: { authorization: `Bearer ${TOKEN}` } });
    t.equal(bearer.statusCode, 200, 'bearer header');
    // The events list has a strict query schema: the token parameter must not reach it.
    const query = await app.inject({ url: `/v0/city/alpha/events?limit=5&access_token=${TOKEN}` });
    t.equal(query.statusCode, 200, `access_token parameter: ${query.body}`);
    const cookie = await app.inject({ url: '/v0/cities', headers: { cookie: `other=1; gc_token=${TOKEN}` } });
    t.equal(cookie.statusCode, 200, 'cookie');
    const post = await app.inject({
      method: 'POST',
      url: '/v0/city/alpha/events',
      headers: { 'x-gc-request': '1', authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      payload: { type: 'custom.token_ok', actor: 'tester' },
    });
    t.ok(post.statusCode < 300, `a mutation with the token passes (${post.statusCode} ${post.body})`);
  },
);

t.test(
  'an EventSource-style stream over a real socket passes with access_token and not without',
  async (t) => {
    const { app, deps } = await tokenApp(t);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const refused = await openSse(`${base}/v0/city/alpha/events/stream`);
    t.equal(refused.status, 401, 'no token: 401 before any frame');
    t.match(JSON.parse(refused.body), { detail: /^unauthorized: / });
    const sse = await openSse(
      `${base}/v0/city/alpha/events/stream?access_token=${encodeURIComponent(TOKEN)}`,
    );
    t.teardown(() => sse.close());
    t.equal(sse.status, 200);
    await deps.cities.get('alpha')!.log.appendCustom({ type: 'custom.seen', actor: 'tester' });
    const frame = await sse.nextEvent(5000);
    t.match(JSON.parse(frame.data), { type: 'custom.seen' }, 'the stream delivers events');
  },
);

t.test('the logger censors the bearer header, cookies and the access_token parameter', async (t) => {
  let out = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      out += String(chunk);
      done();
    },
  });
  const logger = pino(TOKEN_REDACTION, sink);
  logger.info(
    {
      req: {
        method: 'GET',
        url: `/v0/events/stream?after_cursor=0&access_token=${TOKEN}`,
        headers: { authorization: `Bearer ${TOKEN}`, cookie: `gc_token=${TOKEN}` },
      },
    },
    'request',
  );
  logger.warn({ headers: { authorization: `Bearer ${TOKEN}` } }, 'forward failed');
  t.notMatch(out, TOKEN, 'the token appears nowhere in the log');
  t.match(out, /access_token=\[redacted\]/);
  t.match(out, /after_cursor=0/, 'the rest of the URL is kept');
});
