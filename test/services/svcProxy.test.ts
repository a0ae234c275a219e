/**
 * The workspace-service proxy over real sockets to a real child process (test/fixtures/services): requests
 * and bodies go through streamed both ways (a body over the API's 1 MB limit passes; an echo answers its first
 * chunk before the request ends), SSE frames arrive while the response is still open, WebSocket upgrades
 * echo, and the refusals are upstream's (the static city 404, unknown service, private-service csrf).
 */
import { request, type IncomingMessage } from 'node:http';
import t from 'tap';
import WebSocket from 'ws';
import { fixtureService, isServiceEvent, servicesHarness, type ServicesHarness } from './harness.ts';

const h: ServicesHarness = await servicesHarness(t, [fixtureService('fix')]);
await h.event(isServiceEvent('service.ready', 'fix'));
const svc = `${h.base}/v0/city/${h.name}/svc/fix`;

/** Collects a response's text as it arrives; `until(pred)` waits for what arrived so far to satisfy it. */
function collect(res: NodeJS.ReadableStream): {
  until(pred: (text: string) => boolean): Promise<{ text: string; ended: boolean }>;
} {
  let text = '';
  let ended = false;
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((w) => w());
  res.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    wake();
  });
  res.once('end', () => {
    ended = true;
    wake();
  });
  return {
    until: (pred) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only got ${JSON.stringify(text)}`)), 5000);
        const check = () => {
          if (!pred(text)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve({ text, ended });
        };
        waiters.add(check);
        check();
      }),
  };
}

t.test(
  'a GET reaches the service at the path after /svc/<name>, with its query and the service env',
  async (t) => {
    const res = await fetch(`${svc}/info?x=1&y=two`);
    t.equal(res.status, 200);
    t.match(res.headers.get('x-gc-request-id'), /^[0-9a-f]{16}$/, 'the supervisor names the request');
    const body = (await res.json()) as {
      url: string;
      headers: Record<string, string>;
      env: Record<string, string>;
    };
    t.equal(body.url, '/info?x=1&y=two');
    t.equal(body.headers['x-forwarded-for'], '127.0.0.1');
    t.equal(body.env.GC_SERVICE_NAME, 'fix');
    t.equal(body.env.GC_CITY, h.name);
    t.equal(body.env.GC_SERVICE_URL_PREFIX, '/svc/fix');
    t.match(body.env.GC_SERVICE_SOCKET, /gcsvc-\d+\/[0-9a-f]{8}\/fix-[0-9a-f]{8}\.sock$/);
    const root = await fetch(`${svc}/`);
    t.equal(root.status, 404, 'the bare mount reaches the service at /');
    t.equal(await root.text(), 'no such path');
  },
);

t.test('request bodies stream through unbuffered, past the API body limit', async (t) => {
  const big = Buffer.alloc(3 * 1024 * 1024, 'z');
  const res = await fetch(`${svc}/echo`, { method: 'POST', body: big, headers: { 'x-gc-request': '1' } });
  t.equal(res.status, 200);
  t.equal(Buffer.from(await res.arrayBuffer()).equals(big), true, '3 MiB echoed whole');

  // The echo answers the first chunk while the request is still open: nothing waits for the whole body.
  const first = await new Promise<string>((resolve, reject) => {
    const req = request(`${svc}/echo`, { method: 'POST', headers: { 'x-gc-request': '1' } }, (res) => {
      const body = collect(res);
      body
        .until((s) => s.includes('first'))
        .then(({ ended }) => {
          t.equal(ended, false, 'the response is still open');
          req.end('second');
          return body.until((s) => s.includes('second')).then(({ text }) => resolve(text));
        })
        .catch(reject);
    });
    req.on('error', reject);
    req.flushHeaders();
    req.write('first');
  });
  t.equal(first, 'firstsecond');
});

t.test('SSE frames arrive as the service writes them, before the response ends', async (t) => {
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    request(`${svc}/sse/held`, resolve).on('error', reject).end(),
  );
  t.equal(res.headers['content-type'], 'text/event-stream');
  const body = collect(res);
  const one = await body.until((s) => s.includes('data: one\n\n'));
  t.equal(one.ended, false, 'the first frame came while the stream is open');
  const released = await fetch(`${svc}/release`, { method: 'POST', headers: { 'x-gc-request': '1' } });
  t.equal(await released.text(), 'released');
  const two = await body.until((s) => s.includes('data: two\n\n'));
  t.match(two.text, 'event: greeting');
});

t.test('a WebSocket upgrade is proxied both ways', async (t) => {
  const ws = new WebSocket(`${svc.replace('http:', 'ws:')}/ws?room=1`);
  const messages: string[] = [];
  const got = (n: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => (messages.length >= n ? resolve() : undefined);
      ws.on('message', (data: Buffer) => {
        messages.push(data.toString());
        check();
      });
      ws.once('error', reject);
      check();
    });
  const hello = got(1);
  await hello;
  t.equal(messages[0], 'hello /ws?room=1');
  const echoed = got(2);
  ws.send('ping');
  await echoed;
  t.equal(messages[1], 'ping');
  ws.close();
});

t.test(
  'refusals: the static city 404, an unknown service, a private mutation without X-GC-Request',
  async (t) => {
    for (const url of [`${h.base}/v0/city/ghost/svc/fix/kb`, `${h.base}/v0/city/ghost/svc/`]) {
      const res = await fetch(url);
      t.equal(res.status, 404);
      t.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      t.same(await res.json(), {
        title: 'Not Found',
        status: 404,
        detail: 'not_found: city not found or not running',
      });
    }
    const unknown = await fetch(`${h.base}/v0/city/${h.name}/svc/nope/kb`);
    t.equal(unknown.status, 404);
    t.equal(((await unknown.json()) as { detail: string }).detail, 'not_found: service route not found');
    const hangup = await fetch(`${svc}/hangup`);
    t.equal(hangup.status, 502, 'a service that hangs up is a bad gateway');
    t.match(await hangup.json(), { title: 'Bad Gateway', detail: /^bad_gateway: service did not answer: / });
    const csrf = await fetch(`${svc}/echo`, { method: 'POST', body: 'x' });
    t.equal(csrf.status, 403);
    t.equal(
      ((await csrf.json()) as { detail: string }).detail,
      'csrf: X-GC-Request header required on private service mutation endpoints',
    );
    const ws = new WebSocket(`${h.base.replace('http:', 'ws:')}/v0/city/ghost/svc/fix/ws`);
    const status = await new Promise<number>((resolve) =>
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
    );
    t.equal(status, 404, 'an upgrade for a city that is not running is the same 404');
  },
);
