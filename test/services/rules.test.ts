/**
 * The pure rules of workspace services: `[[service]]` checking (upstream's keys, defaults and refusals),
 * the restart backoff, and the private-service access rules of the proxy.
 */
import t from 'tap';
import { restartDelayMs, DEFAULT_RESTART_POLICY } from '../../machines/workspaceServices/restartPolicy.ts';
import { serviceSpecOf, serviceSpecsOf } from '../../machines/workspaceServices/serviceSpec.ts';
import { isLoopback, svcRefusal, svcTarget, withoutSupervisorToken } from '../../http/svcAccess.ts';

t.test('a proxy_process table gets upstream defaults', async (t) => {
  t.same(serviceSpecOf({ name: 'Docs_1', kind: 'proxy_process', process: { command: ['node', 's.js'] } }), {
    name: 'Docs_1',
    kind: 'proxy_process',
    publishMode: 'private',
    visibility: 'private',
    hostname: 'docs-1',
    allowWebsockets: false,
    stateRoot: '.gc/services/Docs_1',
    command: ['node', 's.js'],
  });
  t.match(serviceSpecOf({ name: 'pub', publish_mode: 'direct', workflow: { contract: 'c' } }), {
    kind: 'workflow',
    visibility: 'public',
    workflowContract: 'c',
  });
});

t.test('invalid tables are refused naming the key', async (t) => {
  const cases: [unknown, string][] = [
    [{ name: '-x' }, 'service name "-x" must match [a-zA-Z0-9][a-zA-Z0-9_-]*'],
    [{ name: 'a', kind: 'daemon' }, 'service a: kind must be workflow or proxy_process, not "daemon"'],
    [{ name: 'a', publish_mode: 'open' }, 'service a: publish_mode must be private or direct, not "open"'],
    [
      { name: 'a', publish_mode: 'direct', publication: { visibility: 'tenant' } },
      'service a: publish_mode direct requires publication.visibility public',
    ],
    [{ name: 'a', state_root: '.gc/../x' }, 'service a: state_root must stay under .gc/services/'],
    [{ name: 'a', state_root: '/abs/.gc/services/a' }, 'service a: state_root must stay under .gc/services/'],
    [
      { name: 'a', kind: 'proxy_process' },
      'service a: process.command is required for a proxy_process service',
    ],
    [
      { name: 'a', kind: 'proxy_process', process: { command: ['x', 1] } },
      'service a: process.command must be an array of strings',
    ],
    [{ name: 'a' }, 'service a: workflow.contract is required for a workflow service'],
    [
      { name: 'a', kind: 'proxy_process', process: { command: ['x'], health_path: 'up' } },
      'service a: process.health_path must start with /',
    ],
  ];
  for (const [table, error] of cases)
    t.same(serviceSpecOf(table), { name: (table as { name: string }).name, error });
  const twice = serviceSpecsOf([
    { name: 'a', workflow: { contract: 'c' } },
    { name: 'a', workflow: { contract: 'd' } },
  ]);
  t.same(twice[1], { name: 'a', error: 'service a is defined twice' });
});

t.test('the backoff doubles from the initial delay up to the cap', async (t) => {
  const p = { ...DEFAULT_RESTART_POLICY, initialMs: 1000, factor: 2, maxMs: 30_000 };
  t.same(
    [1, 2, 3, 4, 5, 6, 7].map((n) => restartDelayMs(n, p)),
    [1000, 2000, 4000, 8000, 16000, 30000, 30000],
  );
  t.equal(restartDelayMs(0, p), 1000, 'no failure yet counts as the first');
});

t.test("upstream's private-service rules", async (t) => {
  const local = { method: 'GET', remoteAddress: '127.0.0.1', marker: undefined };
  t.equal(svcRefusal('private', local, false), undefined);
  t.equal(svcRefusal('private', { ...local, remoteAddress: '::ffff:127.0.0.9' }, false), undefined);
  t.same(svcRefusal('private', { ...local, remoteAddress: '10.0.0.2' }, false), {
    status: 404,
    detail: 'not_found: service route not found',
  });
  t.equal(svcRefusal('private', { ...local, remoteAddress: '10.0.0.2', marker: '1' }, false), undefined);
  t.equal(svcRefusal('private', { ...local, method: 'POST' }, false)?.status, 403);
  t.equal(svcRefusal('private', { ...local, method: 'POST', marker: 'x' }, false), undefined);
  t.match(svcRefusal('private', { ...local, method: 'DELETE', marker: 'x' }, true), {
    detail: /^read_only: /,
  });
  t.equal(svcRefusal('direct', { ...local, remoteAddress: '10.0.0.2', method: 'POST' }, true), undefined);
  t.equal(isLoopback('::1'), true);
  t.equal(isLoopback('128.0.0.1'), false);
  t.equal(isLoopback(undefined), false);
});

t.test('proxy paths are taken apart from the raw URL', async (t) => {
  t.same(svcTarget('/v0/city/a%20b/svc/docs/x/y?q=1'), { city: 'a b', service: 'docs', path: '/x/y?q=1' });
  t.same(svcTarget('/v0/city/a/svc/docs'), { city: 'a', service: 'docs', path: '/' });
  t.same(svcTarget('/v0/city/a/svc/docs?x'), { city: 'a', service: 'docs', path: '/?x' });
  t.equal(svcTarget('/v0/city/a/services'), undefined);
  t.equal(svcTarget('/v0/city/%zz/svc/docs'), undefined);
});

t.test("the supervisor's API token never reaches a service", async (t) => {
  const headers: Record<string, string | undefined> = {
    authorization: 'Bearer s3cret',
    cookie: 'a=1; gc_token=s3cret; b=2',
  };
  t.equal(withoutSupervisorToken(headers, '/x?access_token=s3cret&q=1', 's3cret'), '/x?q=1');
  t.same(headers, { cookie: 'a=1; b=2' });
  const own = { authorization: 'Bearer service-own' };
  t.equal(withoutSupervisorToken(own, '/x?access_token=s3cret', 's3cret'), '/x');
  t.same(own, { authorization: 'Bearer service-own' }, "a service's own credential passes");
  const open = { authorization: 'Bearer s3cret' };
  t.equal(withoutSupervisorToken(open, '/x?access_token=a', undefined), '/x?access_token=a');
  t.same(open, { authorization: 'Bearer s3cret' }, 'no token configured: nothing to take out');
});
