/**
 * `gc service list|restart` as the built binary against a city whose workspace services run as real child
 * processes: the table and the JSON lines, a restart's answer and event, and an unknown service's error.
 */
import t from 'tap';
import { isolatedEnv, runGc } from './helpers/gc.ts';
import { fixtureService, isServiceEvent, payloadOf, servicesHarness } from '../services/harness.ts';

const h = await servicesHarness(t, [fixtureService('web'), { name: 'docs', workflow: { contract: 'x.v1' } }]);
await h.event(isServiceEvent('service.ready', 'web'));
const env = isolatedEnv(h.dir);
const target = ['--api', h.base, '--city', h.name];

t.test('gc service list prints a table, or one Status per line with --json', async (t) => {
  const table = await runGc(['service', 'list', ...target], { env });
  t.equal(table.code, 0, table.stderr);
  const lines = table.stdout.trimEnd().split('\n');
  t.match(lines[0], /^NAME\s+KIND\s+STATE\s+MOUNT\s+REASON$/);
  t.match(lines[1], /^web\s+proxy_process\s+ready\s+\/svc\/web\s+-$/);
  t.match(lines[2], /^docs\s+workflow\s+config_error\s+\/svc\/docs\s+unsupported workflow contract "x\.v1"$/);
  const json = await runGc(['service', 'list', '--json', ...target], { env });
  t.equal(json.code, 0, json.stderr);
  const items = json.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { service_name: string; local_state: string });
  t.same(
    items.map((s) => [s.service_name, s.local_state]),
    [
      ['web', 'ready'],
      ['docs', 'config_error'],
    ],
  );
});

t.test('gc service restart restarts the process and prints the answer', async (t) => {
  const from = await h.head();
  const res = await runGc(['service', 'restart', 'web', ...target], { env });
  t.equal(res.code, 0, res.stderr);
  t.same(JSON.parse(res.stdout), { status: 'ok', action: 'restart', service: 'web' });
  const stopped = await h.event(isServiceEvent('service.stopped', 'web'), from);
  t.equal(payloadOf(stopped).reason, 'restart');
  const missing = await runGc(['service', 'restart', 'nope', ...target], { env });
  t.equal(missing.code, 1);
  t.equal(missing.stdout, '');
  t.match(missing.stderr, 'not_found: service nope not found');
});
