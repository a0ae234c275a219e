import { spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { answerLength, exchange, parseAnswer, unchunk } from '../../cli/bd/wire.ts';

// bd's and gc hook's HTTP client (cli/bd/wire.ts) against Node's own server over a real socket: the
// answer shapes Fastify gives (Content-Length, chunked, no body), a request body, a big answer that
// arrives in many packets, and a refused connection.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handler(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

t.test('a Content-Length answer, with the request line, host and headers as sent', async (t) => {
  let seen: { method?: string; url?: string; host?: string; token?: string } = {};
  const s = await serve((req, res) => {
    seen = { method: req.method, url: req.url, host: req.headers.host, token: req.headers.authorization };
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  t.teardown(s.close);
  const url = new URL(`${s.base}/v0/city/a%20b/beads?status=open&limit=2`);
  const got = await exchange(url, 'GET', { authorization: 'Bearer tok' });
  t.same(got, { status: 200, text: '{"ok":true}' });
  t.same(seen, {
    method: 'GET',
    url: '/v0/city/a%20b/beads?status=open&limit=2',
    host: url.host,
    token: 'Bearer tok',
  });
});

t.test('a request body arrives whole, its length counted in bytes', async (t) => {
  let got = '';
  const s = await serve((_req, res, body) => {
    got = body;
    res.writeHead(201, { 'content-type': 'application/json' }).end(body);
  });
  t.teardown(s.close);
  const payload = JSON.stringify({ title: 'café ☕ — ünïcode' });
  const answer = await exchange(
    new URL(`${s.base}/x`),
    'POST',
    { 'content-type': 'application/json' },
    payload,
  );
  t.equal(got, payload);
  t.same(answer, { status: 201, text: payload });
});

t.test('a chunked answer in many writes, and an answer with no body', async (t) => {
  const sized = Buffer.from('y'.repeat(4 * 1024 * 1024));
  const parts = Array.from({ length: 200 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(500)}"}`);
  const s = await serve((req, res) => {
    if (req.url === '/none') return void res.writeHead(204).end();
    if (req.url === '/sized') return void res.writeHead(200, { 'content-length': sized.length }).end(sized);
    res.writeHead(200, { 'content-type': 'application/json' });
    for (const p of parts) res.write(p + '\n');
    res.end();
  });
  t.teardown(s.close);
  const big = await exchange(new URL(`${s.base}/big`), 'GET', {});
  t.equal(big.status, 200);
  t.equal(big.text, parts.map((p) => p + '\n').join(''), 'every chunk, in order, no chunk sizes');
  const four = await exchange(new URL(`${s.base}/sized`), 'GET', {});
  t.equal(four.text.length, sized.length, 'a 4 MiB Content-Length answer, whole, over many packets');
  t.same(await exchange(new URL(`${s.base}/none`), 'DELETE', {}), { status: 204, text: '' });
});

t.test('an error status is an answer; a refused connection rejects with its reason', async (t) => {
  const s = await serve((_req, res) =>
    res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{"detail":"not_found: x"}'),
  );
  const got = await exchange(new URL(`${s.base}/missing`), 'GET', {});
  t.same(got, { status: 404, text: '{"detail":"not_found: x"}' });
  await s.close();
  await t.rejects(exchange(new URL(s.base + '/after'), 'GET', {}), { code: 'ECONNREFUSED' });
});

t.test('the parsers: pure cases', async (t) => {
  const b = (s: string) => Buffer.from(s, 'latin1');
  t.same(parseAnswer(b('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiEXTRA')), { status: 200, text: 'hi' });
  t.same(unchunk(b('3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\n\r\n')).toString(), 'abcde');
  t.throws(() => unchunk(b('5\r\nab')), /truncated/);
  t.throws(
    () => parseAnswer(b('HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort')),
    /before the answer was whole/,
  );
  t.throws(() => parseAnswer(b('SSH-2.0-OpenSSH\r\n\r\n')), /not an HTTP answer/);
  t.throws(() => parseAnswer(b('HTTP/1.1 200 OK\r\nContent-Le')), /before the answer was whole/);
  const head = 'HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\n';
  t.equal(answerLength(b('HTTP/1.1 200 OK\r\ncontent-len')), undefined, 'the head is not whole yet');
  t.equal(answerLength(b(head + 'ab')), head.length + 4, 'the whole length, from the head alone');
  t.equal(
    answerLength(b('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nab\r\n')),
    null,
    'chunked: read to the end',
  );
});

t.test('bd and gc hook load neither node:http nor the ES module loader at start-up', async (t) => {
  // A preload that reports, at exit, which of Node's own modules the launcher loaded.
  const dir = t.testdir({
    'dump.cjs':
      "process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(process.moduleLoadList) + '\\n'));",
  });
  // Only these: tap and tsx put their loaders into the environment, and a child would load them too.
  const env = {
    PATH: process.env.PATH,
    GC_API: 'http://127.0.0.1:1',
    GC_CITY: 'nowhere',
    GC_TEMPLATE: 'polecat',
  };
  for (const argv of [
    ['bin/bd.js', 'show', 'x-1'],
    ['bin/gc.js', 'hook'],
  ]) {
    // Through env -u: tap adds its loaders to every child's NODE_OPTIONS, and they would load the ES loader.
    const r = spawnSync(
      'env',
      ['-u', 'NODE_OPTIONS', process.execPath, '-r', join(dir, 'dump.cjs'), ...argv],
      {
        cwd: root,
        env,
        encoding: 'utf8',
      },
    );
    const line = r.stderr.split('\n').find((l) => l.startsWith('LOADED '));
    t.ok(line, `${argv.join(' ')} ran to its exit (${r.stderr.slice(0, 200)})`);
    const loaded = JSON.parse(line!.slice('LOADED '.length)) as string[];
    t.ok(loaded.includes('NativeModule net'), `${argv.join(' ')}: the report is real (net was loaded)`);
    for (const m of ['http', 'https', 'internal/modules/esm/translators'])
      t.notOk(loaded.includes(`NativeModule ${m}`), `${argv.join(' ')}: no ${m}`);
  }
});
