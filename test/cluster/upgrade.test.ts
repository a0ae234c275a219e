import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import WebSocket from 'ws';
import type { ClusterRouting } from '../../actors/supervisor/cluster/clusterCoordinator.ts';
import type { CityOwnership } from '../../actors/supervisor/cluster/clusterNode.ts';
import { upgradeRoute } from '../../http/clusterUpgrade.ts';
import { FIXTURE_COMMAND } from '../services/harness.ts';
import { startCluster, TOKEN, until, type Member } from './clusterKit.ts';

/**
 * Issue #17/#20: a WebSocket upgrade sent to a supervisor that does not own the city is proxied to the
 * owner as plain requests are (credentials kept for the hop, stripped by the owner before the service), a
 * refused one is refused with the same problems, and the owner's own refusals come back whole.
 */
t.setTimeout(3 * 60_000);

/** What a WebSocket connect ends in: the first message once open, or the refusal's status and headers. */
function connect(
  url: string,
  headers: Record<string, string> = {},
): Promise<
  | { ws: WebSocket; first: string; owner: string | undefined }
  | { status: number; headers: Record<string, unknown>; body: string }
> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    let owner: string | undefined;
    ws.once('upgrade', (res) => (owner = res.headers['gc-city-owner'] as string | undefined));
    ws.once('message', (data: Buffer) => resolve({ ws, first: data.toString(), owner }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    ws.once('error', reject);
  });
}

/** The next message of `ws`. */
const next = (ws: WebSocket): Promise<string> =>
  new Promise((resolve) => ws.once('message', (d: Buffer) => resolve(d.toString())));

/** Creates city `name` through `m` with the fixture service `web` (WebSocket echo) and waits until it serves. */
async function serviceCity(m: Member, name: string): Promise<void> {
  const dir = join(m.proc.cities, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'city.toml'),
    [
      '[workspace]',
      `name = "${name}"`,
      'start_command = "true"',
      '',
      '[[service]]',
      'name = "web"',
      'kind = "proxy_process"',
      '[service.process]',
      `command = ${JSON.stringify(FIXTURE_COMMAND)}`,
      'health_path = "/healthz"',
      '',
    ].join('\n'),
  );
  const created = await m.call('POST', '/v0/city', { dir, start_command: 'true' });
  if (created.status !== 202) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  await until(
    'service web ready',
    async () => (await m.call('GET', `/v0/city/${name}/service/web`)).body?.local_state === 'ready',
    60_000,
  );
}

t.test('a WebSocket to the non-owner reaches the owner’s service, both ways', async (t) => {
  const cluster = await startCluster(t);
  if (!cluster) return; // skipped by startCluster: no nats-server
  const { a, b } = cluster;
  await serviceCity(a, 'wharf');
  await until('b knows a owns wharf', async () => {
    const r = await b.call('GET', '/v0/city/wharf/service/web');
    return r.status === 200 && r.headers.get('gc-city-owner') === a.url;
  });
  const ws = (s: Member, path: string) => `${s.url.replace('http:', 'ws:')}/v0/city/wharf/svc/web${path}`;

  const viaB = await connect(ws(b, '/ws?room=1'), { authorization: `Bearer ${TOKEN}` });
  if (!('ws' in viaB)) throw new Error(`not upgraded: ${JSON.stringify(viaB)}`);
  t.teardown(() => viaB.ws.terminate());
  t.equal(viaB.first, 'hello /ws?room=1', 'the owner’s service answered, the path kept');
  t.equal(viaB.owner, a.url, 'the 101 names the owner');
  for (const text of ['ping', 'x'.repeat(200_000)]) {
    const echoed = next(viaB.ws);
    viaB.ws.send(text);
    t.equal(await echoed, text, `echo of ${text.length} bytes through B`);
  }
  const closed = new Promise<number>((r) => viaB.ws.once('close', (code) => r(code)));
  viaB.ws.close(4001, 'done');
  t.equal(await closed, 4001, 'the close frame went through both hops');

  // An EventSource-style client: the token as a parameter crosses the hop, the service never sees it.
  const byQuery = await connect(ws(b, `/ws?access_token=${TOKEN}&room=2`));
  if (!('ws' in byQuery)) throw new Error(`not upgraded: ${JSON.stringify(byQuery)}`);
  t.equal(byQuery.first, 'hello /ws?room=2', 'access_token taken out by the owner, not by the hop');
  byQuery.ws.terminate();

  const anonymous = await connect(ws(b, '/ws'));
  t.match(anonymous, { status: 401, headers: { 'content-type': /^application\/problem\+json/ } });
  t.notOk('headers' in anonymous && anonymous.headers['gc-city-owner'], 'no owner named without the token');
  t.notMatch('body' in anonymous ? anonymous.body : '', a.url);

  const unknown = await connect(`${b.url.replace('http:', 'ws:')}/v0/city/wharf/svc/nope/ws`, {
    authorization: `Bearer ${TOKEN}`,
  });
  t.match(unknown, { status: 404, headers: { 'gc-city-owner': a.url } }, 'the owner’s refusal comes back');
  t.match(JSON.parse('body' in unknown ? unknown.body : '{}'), {
    detail: 'not_found: service route not found',
  });

  // The owner itself still serves its own city directly.
  const direct = await connect(ws(a, '/ws?room=3'), { authorization: `Bearer ${TOKEN}` });
  if (!('ws' in direct)) throw new Error(`not upgraded: ${JSON.stringify(direct)}`);
  t.equal(direct.first, 'hello /ws?room=3');
  t.equal(direct.owner, undefined, 'no hop, no owner header');
  direct.ws.terminate();

  // The owner dies under an open forwarded WebSocket: the client's connection ends, it is never left hanging.
  const open = await connect(ws(b, '/ws?room=4'), { authorization: `Bearer ${TOKEN}` });
  if (!('ws' in open)) throw new Error(`not upgraded: ${JSON.stringify(open)}`);
  const ended = new Promise<number>((r) => open.ws.once('close', (code) => r(code)));
  await a.proc.stop('SIGKILL');
  t.equal(await ended, 1006, 'the client sees the connection drop (no close frame from a dead owner)');
});

/** A routing table with one city `c` as given. */
const routing = (
  ownership: CityOwnership | undefined,
  over: Partial<ClusterRouting> = {},
): ClusterRouting => ({
  me: { id: 'me', url: 'http://me' },
  forward: true,
  connected: true,
  route: (city) => (city === 'c' ? ownership : undefined),
  onConnection: () => () => undefined,
  ...over,
});
const OTHER: CityOwnership = { kind: 'other', owner: { id: 'o', url: 'http://owner:1' } };
const req = (url: string, headers: Record<string, string> = { authorization: 'Bearer k' }) => ({
  url,
  method: 'GET',
  headers,
});

/** What `fn` throws (undefined when it returns). */
const caught = (fn: () => unknown): unknown => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err;
  }
};

t.test('an upgrade is refused as a plain request would be, before anything is forwarded', async (t) => {
  const svc = '/v0/city/c/svc/web/ws';
  t.same(upgradeRoute(req(svc), routing(OTHER), 'k'), { kind: 'forward', base: 'http://owner:1' });
  t.same(upgradeRoute(req(svc), routing({ kind: 'me' }), 'k'), { kind: 'local' }, 'owned here');
  t.same(upgradeRoute(req('/v0/city/zz/svc/web'), routing(OTHER), 'k'), { kind: 'local' }, 'unknown city');
  t.same(upgradeRoute(req('/v0/cities'), routing(OTHER), 'k'), { kind: 'local' }, 'not a city path');
  const replica = upgradeRoute(req('/v0/city/c/events/stream'), routing(OTHER), 'k');
  t.same(replica, { kind: 'local' }, 'a replica read stays local');
  t.match(
    caught(() => upgradeRoute(req(svc, {}), routing(OTHER), 'k')),
    { status: 401 },
    'no token',
  );
  t.match(
    caught(() => upgradeRoute(req(svc), routing(OTHER, { connected: false }), 'k')),
    {
      status: 503,
      code: 'journal_unavailable',
    },
  );
  t.match(
    caught(() => upgradeRoute(req(svc), routing({ kind: 'none' }), 'k')),
    {
      status: 503,
      code: 'no_owner',
    },
  );
  t.match(
    caught(() => upgradeRoute(req(svc), routing(OTHER, { forward: false }), 'k')),
    {
      status: 421,
      owner: { url: 'http://owner:1' },
    },
  );
  const twice = req(svc, { authorization: 'Bearer k', 'x-gc-forwarded-by': 'peer' });
  t.match(
    caught(() => upgradeRoute(twice, routing(OTHER), 'k')),
    { status: 421 },
    'never forwarded twice',
  );
});
