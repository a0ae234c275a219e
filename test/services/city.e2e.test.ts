/**
 * Workspace services in a real supervisor: a city's `[[service]]` tables (city.toml) start with the city,
 * answer through /v0/city/{city}/svc/…, and their processes stop when the city stops; maintenance and
 * rotation are served for the same city.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { maintenanceServiceFactory } from '../../actors/maintenance/startMaintenance.ts';
import { workspaceServicesFactory } from '../../actors/workspaceServices/startWorkspaceServices.ts';
import { eventually, fakeHost, startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';
import { FAST_POLICY, FIXTURE_COMMAND } from './harness.ts';

const CITY = 'works';
const services = [workspaceServicesFactory({ policy: FAST_POLICY }), maintenanceServiceFactory()];

t.test('a city runs its [[service]] tables and stops them with it', async (t) => {
  const first = await startTestSupervisor(t, { tickMs: 200 });
  await first.close();
  const start = () =>
    startTestSupervisor(t, {
      tickMs: 200,
      root: first.root,
      options: { services, host: fakeHost(first.home, { bins: ['sh', 'node'] }) },
    });
  let s = await start();
  const dir = join(s.home, CITY);
  const created = await s.call('POST', '/v0/city', { dir, provider: 'mock' });
  t.equal((await waitForTerminal(s.log, created.body.request_id, 20_000)).type, 'request.result.city.create');
  await s.close();
  appendFileSync(
    join(dir, 'city.toml'),
    [
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
  s = await start();
  const base = `/v0/city/${CITY}`;
  let last: unknown;
  await eventually(async () => {
    const res = await s.call('GET', `${base}/service/web`);
    last = res.body;
    return res.body?.local_state === 'ready';
  }, 20_000).catch((err: unknown) => {
    throw new Error(`web never ready: ${JSON.stringify(last)}`, { cause: err });
  });
  const info = await fetch(`${s.url}${base}/svc/web/info`);
  const body = (await info.json()) as { env: Record<string, string> };
  t.equal(body.env.GC_CITY_PATH, dir);
  t.equal(body.env.GC_SERVICE_STATE_ROOT, join(dir, '.gc', 'services', 'web'));
  // The city log as the supervisor wrote it: its last service.ready names the running process.
  const ready = readFileSync(join(dir, '.gc', 'events.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; payload?: { pid?: number } })
    .filter((e) => e.type === 'service.ready')
    .pop();
  const pid = ready!.payload!.pid!;
  t.doesNotThrow(() => process.kill(pid, 0), 'the service process runs');
  t.equal((await s.call('GET', `${base}/maintenance/status`)).body.enabled, false);

  const stopped = await s.call('POST', `${base}/stop`);
  t.equal(stopped.status, 200);
  t.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'stopped with the city');
  const gone = await fetch(`${s.url}${base}/svc/web/info`);
  t.equal(gone.status, 404);
  t.equal(((await gone.json()) as { detail: string }).detail, 'not_found: city not found or not running');
});
