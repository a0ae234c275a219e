import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { inProcessSupervisor, type InProcessSupervisor } from './inProcess.ts';
import { isProblem } from './kit.ts';

/**
 * Fault: the header-injection and huge-body cases of the malformed-request fuzz (malformed.test.ts, which
 * injects into the app), sent as raw bytes over a real socket so that Node's HTTP parser judges them first.
 * A CR or LF inside a header value means something on the wire that it cannot mean to `inject`: a bare one
 * is refused by the parser, a CRLF pair ends the header and starts another. Either way the answer must be a
 * 4xx Problem Details with an X-GC-Request-Id, echo nothing injected, and change no state.
 */
const MIB = 1024 * 1024;

interface RawAnswer {
  status: number;
  headers: Map<string, string[]>;
  body: string;
}

/** One HTTP/1.1 request, written byte for byte: header values go out as given, CR and LF included. */
function raw(
  method: string,
  path: string,
  headers: Array<[string, string]>,
  body = '',
  eol = '\r\n',
): Buffer {
  const head = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close']
    .concat(headers.map(([k, v]) => `${k}: ${v}`))
    .join(eol);
  return Buffer.from(`${head}${eol}${eol}${body}`, 'latin1');
}

/** Sends `bytes` (then `more`, if the server still reads) and parses what comes back until the server closes. */
function send(port: number, bytes: Buffer, more?: (socket: ReturnType<typeof connect>) => void) {
  return new Promise<RawAnswer>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no answer within 10 s')), 10_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    // The server may close while we still write a body it refused: what it answered is what counts.
    socket.on('error', (err) => (chunks.length === 0 ? reject(err) : undefined));
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers = new Map<string, string[]>();
      for (const line of lines) {
        const at = line.indexOf(':');
        const name = line.slice(0, at).toLowerCase();
        headers.set(name, [...(headers.get(name) ?? []), line.slice(at + 1).trim()]);
      }
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine ?? '')?.[1] ?? 0);
      resolve({ status, headers, body: end < 0 ? '' : text.slice(end + 4) });
    });
    socket.write(bytes);
    more?.(socket);
  });
}

const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];
const CSRF: [string, string] = ['X-GC-Request', 'fuzz'];
const UNEXPECTED = '{"unexpected": true}';
const withLength = (body: string): [string, string] => ['Content-Length', String(Buffer.byteLength(body))];

interface Case {
  name: string;
  bytes: Buffer;
  status: number;
  more?: (socket: ReturnType<typeof connect>) => void;
}

function cases(city: string): Case[] {
  const beads = `/v0/city/${city}/beads`;
  const stream = `/v0/city/${city}/events/stream`;
  const post = (headers: Array<[string, string]>, body = UNEXPECTED) =>
    raw('POST', beads, [...headers, withLength(body)], body);
  const huge = `{"title":"${'x'.repeat(MIB + 4096)}"}`;
  return [
    // X-GC-Request, Content-Type, Origin and Last-Event-ID carrying an injected line, as the fuzz does.
    {
      name: 'bare LF in X-GC-Request',
      bytes: post([JSON_TYPE, ['X-GC-Request', 'a\nX-Injected: 1']]),
      status: 400,
    },
    {
      name: 'bare CR in X-GC-Request',
      bytes: post([JSON_TYPE, ['X-GC-Request', 'a\rX-Injected: 1']]),
      status: 400,
    },
    {
      name: 'CRLF in X-GC-Request: a header of its own, and the body is still judged',
      bytes: post([JSON_TYPE, ['X-GC-Request', 'a\r\nX-Injected: 1']]),
      status: 422,
    },
    {
      name: 'bare LF in Content-Type',
      bytes: post([CSRF, ['Content-Type', 'application/json\nX-Injected: 1']]),
      status: 400,
    },
    {
      name: 'CRLF in Content-Type',
      bytes: post([CSRF, ['Content-Type', 'application/json\r\nX-Injected: 1']]),
      status: 422,
    },
    {
      name: 'CRLF in Origin setting a cookie',
      bytes: post([JSON_TYPE, CSRF, ['Origin', 'http://localhost:1\r\nSet-Cookie: stolen=1']]),
      status: 422,
    },
    {
      name: 'bare LF in Last-Event-ID',
      bytes: raw('GET', stream, [['Last-Event-ID', '1\nevent: evil']]),
      status: 400,
    },
    {
      name: 'CRLF in Last-Event-ID',
      bytes: raw('GET', stream, [['Last-Event-ID', 'abc\r\nevent: evil']]),
      status: 400,
    },
    { name: 'NUL in a header value', bytes: raw('GET', '/v0/cities', [['X-Note', 'a\u0000b']]), status: 400 },
    { name: 'an obsolete line fold', bytes: raw('GET', '/v0/cities', [['X-Note', 'a\r\n b']]), status: 400 },
    { name: 'LF-only line ends', bytes: raw('GET', '/v0/cities', [], '', '\n'), status: 400 },
    {
      name: 'a header block over the limit',
      bytes: raw('GET', '/v0/cities', [['X-Big', 'a'.repeat(20_000)]]),
      status: 431,
    },
    {
      name: 'a Content-Length that is no number',
      bytes: raw('POST', beads, [JSON_TYPE, CSRF, ['Content-Length', '1x']]),
      status: 400,
    },
    {
      name: 'Content-Length and Transfer-Encoding together (smuggling)',
      bytes: raw(
        'POST',
        beads,
        [JSON_TYPE, CSRF, ['Content-Length', '4'], ['Transfer-Encoding', 'chunked']],
        '0\r\n\r\n',
      ),
      status: 400,
    },
    // Huge bodies: declared and sent whole, declared and not sent, and chunked without a length.
    { name: 'a huge body with its Content-Length', bytes: post([JSON_TYPE, CSRF], huge), status: 413 },
    {
      name: 'a huge Content-Length, body not sent',
      bytes: raw('POST', beads, [JSON_TYPE, CSRF, ['Content-Length', String(64 * MIB)]]),
      status: 413,
    },
    {
      name: 'a huge chunked body',
      bytes: raw('POST', beads, [JSON_TYPE, CSRF, ['Transfer-Encoding', 'chunked']]),
      status: 413,
      more: (socket) => {
        const chunk = 'x'.repeat(64 * 1024);
        for (let i = 0; i < 24 && socket.writable; i++)
          socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      },
    },
  ];
}

async function stateOf(sup: InProcessSupervisor) {
  const heads: Record<string, number> = {};
  for (const [name, journal] of sup.supervisor.live.logs()) heads[name] = await journal.head();
  return { heads, cities: (await sup.call('GET', '/v0/cities')).body as unknown };
}

t.test(
  'header injection and huge bodies over a real socket: 4xx problems only, no state change',
  async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'gc-malformed-socket-'));
    const sup = await inProcessSupervisor(root);
    t.teardown(async () => {
      await sup.close();
      rmSync(root, { recursive: true, force: true });
    });
    await sup.createCity('alpha');
    await sup.call('POST', '/v0/city/alpha/beads', { title: 'first' });
    await sup.supervisor.settled();
    const port = Number(new URL(await sup.app.listen({ port: 0, host: '127.0.0.1' })).port);
    const before = await stateOf(sup);

    for (const c of cases('alpha')) {
      const answer = await send(port, c.bytes, c.more);
      let body: unknown = answer.body;
      try {
        body = JSON.parse(answer.body);
      } catch {
        // Not JSON: the Problem Details check below says so.
      }
      t.equal(answer.status, c.status, `${c.name}: ${answer.status}`, { body: answer.body.slice(0, 300) });
      t.ok(
        isProblem(answer.status, answer.headers.get('content-type')?.[0], body),
        `${c.name}: a Problem Details body`,
        { body: answer.body.slice(0, 300) },
      );
      t.match(answer.headers.get('x-gc-request-id')?.[0], /^[0-9a-f]+$/, `${c.name}: an X-GC-Request-Id`);
      t.same(
        ['x-injected', 'set-cookie'].filter((h) => answer.headers.has(h)),
        [],
        `${c.name}: nothing injected comes back as a header`,
      );
      t.notMatch(answer.body, /evil/, `${c.name}: nor in the body`);
    }

    await sup.supervisor.settled();
    t.same(await stateOf(sup), before, 'no journal moved and GET /v0/cities is unchanged');
    t.equal((await sup.call('GET', '/health')).status, 200, 'the supervisor still answers');
  },
);
