/**
 * Workspace services as supervised processes, over the HTTP API: states in GET /services and
 * /service/{name} (config errors listed with why), a crash restarts the process after the backoff with
 * `service.exited` / `service.started` / `service.ready` on the city log, a process that always dies backs
 * off exponentially, POST /service/{name}/restart replaces the process, and stopping the city stops them.
 */
import t from 'tap';
import { FIXTURE_COMMAND, fixtureService, isServiceEvent, payloadOf, servicesHarness } from './harness.ts';

const h = await servicesHarness(t, [
  fixtureService('fix'),
  { name: 'flaky', kind: 'proxy_process', process: { command: [process.execPath, '-e', 'process.exit(7)'] } },
  { name: 'docs', workflow: { contract: 'gc.docs.v1' } },
  { name: 'broken', kind: 'proxy_process' },
  { name: 'bad name!', kind: 'proxy_process', process: { command: FIXTURE_COMMAND } },
]);
const ready = await h.event(isServiceEvent('service.ready', 'fix'));
const api = `${h.base}/v0/city/${h.name}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
const get = async (path: string): Promise<{ status: number; body: any; headers: Headers }> => {
  const res = await fetch(api + path);
  return { status: res.status, body: await res.json(), headers: res.headers };
};

t.test('GET /services lists every service with its state; config errors say why', async (t) => {
  const list = await get('/services');
  t.equal(list.status, 200);
  t.match(list.headers.get('x-gc-index'), /^\d+$/);
  t.equal(list.headers.get('x-gc-cache-age-s'), '0');
  t.equal(list.body.total, 5, 'every table, runnable or not');
  const byName = Object.fromEntries(
    (list.body.items as { service_name: string }[]).map((s) => [s.service_name, s]),
  );
  t.match(byName.fix, {
    kind: 'proxy_process',
    mount_path: '/svc/fix',
    publish_mode: 'private',
    visibility: 'private',
    publication_state: 'private',
    state_root: '.gc/services/fix',
    local_state: 'ready',
    state: 'ready',
  });
  t.match(byName.docs, {
    kind: 'workflow',
    workflow_contract: 'gc.docs.v1',
    local_state: 'config_error',
    reason: 'unsupported workflow contract "gc.docs.v1"',
  });
  t.match(byName.broken, {
    local_state: 'config_error',
    reason: 'service broken: process.command is required for a proxy_process service',
  });
  t.match(byName['bad name!'], {
    local_state: 'config_error',
    reason: 'service name "bad name!" must match [a-zA-Z0-9][a-zA-Z0-9_-]*',
  });
  const one = await get('/service/fix');
  t.equal(one.status, 200);
  t.equal(one.body.service_name, 'fix');
  t.ok(!Number.isNaN(Date.parse(one.body.updated_at)));
  const missing = await get('/service/nope');
  t.equal(missing.status, 404);
  t.equal(missing.body.detail, 'not_found: service nope not found');
});

t.test('a process that always dies is restarted with exponential backoff', async (t) => {
  const exits = [];
  let after = 0;
  for (let i = 1; i <= 3; i++) {
    const e = await h.event(isServiceEvent('service.exited', 'flaky'), after);
    exits.push(payloadOf(e));
    after = e.seq;
  }
  t.same(
    exits.map((p: { failures: number; restart_in_ms: number }) => [p.failures, p.restart_in_ms]),
    [
      [1, 50],
      [2, 100],
      [3, 200],
    ],
  );
  t.match(exits[0], { exit_code: 7, signal: null, reason: 'process exited with code 7' });
  const unready = await fetch(`${api}/svc/flaky/x`);
  t.equal(unready.status, 503, 'a service that is not ready answers 503');
  t.match(await unready.json(), { detail: /^service_unavailable: / });
  const status = await get('/service/flaky');
  t.match(status.body, { local_state: /^(degraded|starting)$/ });
});

t.test('a crash restarts the service after the backoff and the proxy serves again', async (t) => {
  const before = payloadOf(ready).pid as number;
  const from = await h.head();
  const res = await fetch(`${api}/svc/fix/crash`);
  t.equal(await res.text(), 'bye');
  const exited = await h.event(isServiceEvent('service.exited', 'fix'), from);
  t.match(payloadOf(exited), {
    pid: before,
    exit_code: 3,
    reason: 'process exited with code 3',
    failures: 1,
    restart_in_ms: 50,
  });
  const started = await h.event(isServiceEvent('service.started', 'fix'), exited.seq);
  const again = await h.event(isServiceEvent('service.ready', 'fix'), started.seq);
  t.not(payloadOf(again).pid, before, 'a new process');
  t.ok(Date.parse(started.ts) - Date.parse(exited.ts) >= 50, 'not before the backoff');
  const kb = await fetch(`${api}/svc/fix/kb`);
  t.equal((await kb.arrayBuffer()).byteLength, 1024);
});

t.test('POST /service/{name}/restart replaces the process; bad requests change nothing', async (t) => {
  t.equal((await get('/service/fix')).body.local_state, 'ready');
  const from = await h.head();
  const refused = await fetch(`${api}/service/fix/restart`, { method: 'POST' });
  t.equal(refused.status, 403, 'the anti-CSRF header is required');
  // The flaky service keeps crash-looping beside it, so its events may land meanwhile; nothing of fix may.
  const since = await h.journal.list({ afterSeq: from });
  t.same(
    since.filter((e) => (e.payload as { service?: string } | undefined)?.service !== 'flaky'),
    [],
    'nothing recorded',
  );
  const unknown = await fetch(`${api}/service/nope/restart`, {
    method: 'POST',
    headers: { 'x-gc-request': '1' },
  });
  t.equal(unknown.status, 404);
  const res = await fetch(`${api}/service/fix/restart`, { method: 'POST', headers: { 'x-gc-request': '1' } });
  t.equal(res.status, 200);
  t.same(await res.json(), { status: 'ok', action: 'restart', service: 'fix' });
  t.equal((await get('/service/fix')).body.local_state, 'ready', 'answered once the new process is ready');
  const stopped = await h.event(isServiceEvent('service.stopped', 'fix'), from);
  t.equal(payloadOf(stopped).reason, 'restart');
  const readyAgain = await h.event(isServiceEvent('service.ready', 'fix'), stopped.seq);
  t.ok(readyAgain.seq > stopped.seq);
  const ghost = await fetch(`${h.base}/v0/city/ghost/services`);
  t.equal(ghost.status, 404);
  t.equal(
    ((await ghost.json()) as { detail: string }).detail,
    'not_found: city not found or not running: ghost',
  );
});

t.test('stopping the city stops its service processes', async (t) => {
  t.equal(h.services.route('fix')?.ok, true, 'fix is routable');
  const [latest] = await h.journal.list({ type: 'service.ready', order: 'desc', limit: 1 });
  const running = payloadOf(latest!).pid as number;
  t.doesNotThrow(() => process.kill(running, 0), 'the latest ready process runs');
  const from = await h.head();
  await h.services.stop();
  const stopped = await h.event(
    (e) => isServiceEvent('service.stopped', 'fix')(e) && payloadOf(e).reason === 'city_stop',
    from,
  );
  t.ok(stopped);
  t.equal((await get('/service/fix')).body.local_state, 'stopped');
  t.throws(() => process.kill(running, 0), { code: 'ESRCH' }, 'the process is gone');
  t.equal(h.services.route('fix')?.ok, false);
});
