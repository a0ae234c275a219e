/**
 * The proxy's fast path (http/svcFastPath.ts) keeps what Fastify's hooks did for a proxied request, over
 * real sockets to the fixture service with an API token configured: the token (header, query, cookie) is
 * checked and never reaches the service, refusals are the same problems (401, cluster 503/421), a CORS
 * preflight is still the middleware's 204, answers carry X-GC-Request-Id and the X-Forwarded-* headers, and a sized answer keeps its
 * Content-Length (not re-chunked).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';
import type { ClusterRouting } from '../../actors/supervisor/cluster/clusterCoordinator.ts';
import type { CityOwnership } from '../../actors/supervisor/cluster/clusterNode.ts';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import {
  startWorkspaceServices,
  WORKSPACE_SERVICES,
} from '../../actors/workspaceServices/startWorkspaceServices.ts';
import { memoryApp } from '../helpers/app.ts';
import { waitForEvent } from '../helpers/supervisor.ts';
import { fixtureService, isServiceEvent } from './harness.ts';

const TOKEN = 's3cret';
const name = 'fast';
const dir = await mkdtemp(join(tmpdir(), 'gc-svcfast-'));
const backend = new FileJournalBackend();
const journal = await backend.open({ name, file: join(dir, '.gc', 'events.jsonl') });
const log = new LogRuntime(journal);
const services = await startWorkspaceServices({
  name,
  path: dir,
  config: { agents: [], services: [fixtureService('fix')] },
  log,
});
// The cluster's routing table as the HTTP layer reads it; the tests move the city and the broker.
const routing = { connected: true, owner: { kind: 'me' } as CityOwnership };
const cluster: ClusterRouting = {
  me: { id: 'me', url: 'http://127.0.0.1:1' },
  forward: false,
  route: (city) => (city === name ? routing.owner : undefined),
  get connected() {
    return routing.connected;
  },
  onConnection: () => () => undefined,
};
const { app, deps } = await memoryApp({
  config: { ...loadConfig({ GC_HOME: '/nonexistent-gc-home' }), apiToken: TOKEN },
  cluster,
});
deps.cities.set({
  name,
  path: dir,
  journal,
  log,
  running: true,
  services: { [WORKSPACE_SERVICES]: services },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as AddressInfo).port;
t.teardown(async () => {
  await services.stop();
  await app.close();
  await log.close();
  await backend.close();
  await rm(dir, { recursive: true, force: true });
});
await waitForEvent(journal, isServiceEvent('service.ready', 'fix'), 0, 10_000);

const svc = `/v0/city/${name}/svc/fix`;
const bearer = { authorization: `Bearer ${TOKEN}` };

/** One request on a fresh connection: status, headers and body text. */
function call(
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, ...options }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

interface Info {
  method: string;
  url: string;
  headers: Record<string, string>;
}

t.test('a passing request reaches the service without the token, with X-Forwarded-*', async (t) => {
  const res = await call(`${svc}/info?x=1`, { headers: { ...bearer, cookie: 'a=1; gc_token=s3cret' } });
  t.equal(res.status, 200);
  t.match(res.headers['x-gc-request-id'], /^[0-9a-f]{16}$/);
  const info = JSON.parse(res.body) as Info;
  t.equal(info.url, '/info?x=1');
  t.notOk('authorization' in info.headers, 'the Authorization that carried the token is taken out');
  t.equal(info.headers.cookie, 'a=1', 'the gc_token cookie is taken out, the others pass');
  t.equal(info.headers['x-forwarded-for'], '127.0.0.1');
  t.equal(info.headers['x-forwarded-host'], `127.0.0.1:${port}`);
  t.equal(info.headers['x-forwarded-proto'], 'http');

  const query = await call(`${svc}/info?access_token=${TOKEN}&y=2`);
  t.equal(query.status, 200, 'the token as a query parameter passes');
  t.equal((JSON.parse(query.body) as Info).url, '/info?y=2', 'and is not passed on');

  const own = await call(`${svc}/info`, { headers: { ...bearer, cookie: `gc_token=${TOKEN}` } });
  t.notOk('cookie' in (JSON.parse(own.body) as Info).headers, 'a cookie header left empty is dropped');
});

t.test('a sized answer keeps its Content-Length; HEAD has none of the body', async (t) => {
  const res = await call(`${svc}/kb`, { headers: bearer });
  t.equal(res.status, 200);
  t.equal(res.headers['content-length'], '1024');
  t.notOk(res.headers['transfer-encoding'], 'not re-chunked');
  t.equal(res.body.length, 1024);
  const head = await call(`${svc}/kb`, { method: 'HEAD', headers: bearer });
  t.equal(head.status, 200);
  t.equal(head.headers['content-length'], '1024');
  t.equal(head.body, '');
});

t.test('a request without the token is the 401 problem, and reaches nothing', async (t) => {
  const before = await call(`${svc}/tick`, { method: 'POST', headers: { ...bearer, 'x-gc-request': '1' } });
  const refused = await call(`${svc}/tick`, { method: 'POST', headers: { 'x-gc-request': '1' } });
  t.equal(refused.status, 401);
  t.equal(refused.headers['www-authenticate'], 'Bearer realm="gc"');
  t.match(refused.headers['content-type'], /^application\/problem\+json/);
  t.match(JSON.parse(refused.body), { status: 401 });
  const wrong = await call(`${svc}/kb`, { headers: { authorization: 'Bearer nope' } });
  t.equal(wrong.status, 401);
  const after = await call(`${svc}/tick`, { method: 'POST', headers: { ...bearer, 'x-gc-request': '1' } });
  t.equal(Number(after.body.split(' ')[0]), Number(before.body.split(' ')[0]) + 1, 'no tick in between');
});

t.test(
  'CORS: a request with an Origin is proxied, a preflight is the 204 with the CORS headers',
  async (t) => {
    const origin = 'http://localhost:5173';
    const res = await call(`${svc}/kb`, { headers: { ...bearer, origin } });
    t.equal(res.status, 200);
    t.equal(res.body.length, 1024);
    const preflight = await call(`${svc}/kb`, { method: 'OPTIONS', headers: { origin } });
    t.equal(preflight.status, 204);
    t.equal(preflight.headers['access-control-allow-origin'], origin);
  },
);

t.test('cluster: broker lost is 503, a city owned elsewhere 421 naming the owner', async (t) => {
  t.teardown(() => {
    routing.connected = true;
    routing.owner = { kind: 'me' };
  });
  routing.connected = false;
  const lost = await call(`${svc}/kb`, { headers: bearer });
  t.equal(lost.status, 503);
  t.match(JSON.parse(lost.body), { detail: /^journal_unavailable: / });
  routing.connected = true;
  routing.owner = { kind: 'other', owner: { id: 'b', url: 'http://127.0.0.1:2' } };
  const elsewhere = await call(`${svc}/kb`, { headers: bearer });
  t.equal(elsewhere.status, 421);
  t.equal(elsewhere.headers['gc-city-owner'], 'http://127.0.0.1:2');
  routing.owner = { kind: 'none' };
  const none = await call(`${svc}/kb`, { headers: bearer });
  t.equal(none.status, 503);
  t.equal(none.headers['retry-after'], '1');
  routing.owner = { kind: 'me' };
  t.equal((await call(`${svc}/kb`, { headers: bearer })).status, 200, 'owned here again: served');
});
