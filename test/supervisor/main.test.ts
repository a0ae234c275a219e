import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';
import { runSupervisor, supervisorInfoFile } from '../../http/main.ts';
import { memoryApp } from '../helpers/app.ts';
import { recordingLogger } from '../helpers/recordingLogger.ts';
import { fakeHost } from '../helpers/supervisor.ts';

const tmp = (t: Test): string => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-main-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

t.test('runSupervisor records {pid, url} in supervisor.json and removes it on a clean stop', async (t) => {
  const home = tmp(t);
  const running = await runSupervisor(loadConfig({ GC_HOME: home, GC_PORT: '0' }), { host: fakeHost(home) });
  t.match(running.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.same(JSON.parse(readFileSync(supervisorInfoFile(home), 'utf8')), { pid: process.pid, url: running.url });
  const health = (await (await fetch(`${running.url}/health`)).json()) as Record<string, unknown>;
  t.match(health, { status: 'ok', version: '0.1.0', cities_total: 0, cities_running: 0, build_id: String });
  t.notOk('journal' in health, 'our journal field only on opt-in');
  const extras = (await (await fetch(`${running.url}/health?extras=true`)).json()) as Record<string, unknown>;
  t.equal(extras.journal, 'file');
  await running.close();
  await running.close();
  t.notOk(existsSync(supervisorInfoFile(home)));
  t.same(
    readFileSync(join(home, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { type: string }).type),
    ['supervisor.started', 'supervisor.stopped'],
  );
});

t.test('bound to a non-loopback address the API is read-only, with a warning', async (t) => {
  const home = tmp(t);
  const { logger, records } = recordingLogger();
  const running = await runSupervisor(loadConfig({ GC_HOME: home, GC_PORT: '0', GC_BIND: '0.0.0.0' }), {
    host: fakeHost(home),
    logger,
  });
  t.teardown(() => running.close());
  t.match(
    records.filter((r) => r.level === 40),
    [{ bind: '0.0.0.0', msg: 'mutation endpoints disabled (non-localhost bind)' }],
  );
  const res = await fetch(`${running.url}/v0/city`, {
    method: 'POST',
    headers: { 'x-gc-request': '1', 'content-type': 'application/json' },
    body: JSON.stringify({ dir: join(home, 'c'), start_command: 'x' }),
  });
  t.equal(res.status, 403);
  t.match(await res.json(), {
    detail: 'read_only: mutations disabled: server bound to non-localhost address',
  });
  t.equal((await fetch(`${running.url}/v0/cities`)).status, 200, 'reads still work');

  const allowed = await runSupervisor(
    loadConfig({ GC_HOME: tmp(t), GC_PORT: '0', GC_BIND: '0.0.0.0', GC_ALLOW_MUTATIONS: '1' }),
    { host: fakeHost(home) },
  );
  t.teardown(() => allowed.close());
  const ok = await fetch(`${allowed.url}/v0/city`, {
    method: 'POST',
    headers: { 'x-gc-request': '1', 'content-type': 'application/json' },
    body: JSON.stringify({ dir: join(tmp(t), 'c'), start_command: 'x' }),
  });
  t.equal(ok.status, 202, 'allow_mutations lifts it');
  // Stopped here, before the teardowns remove their directories: the accepted create is still writing.
  await allowed.close();
  await running.close();
});

t.test('a supervisor without an initializer answers 501 to city lifecycle operations', async (t) => {
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  const create = await app.inject({
    method: 'POST',
    url: '/v0/city',
    headers: { 'x-gc-request': '1' },
    payload: { dir: '/tmp/x', start_command: 'x' },
  });
  t.equal(create.statusCode, 501);
  t.equal(create.json().detail, 'city creation is not available in this supervisor (no initializer wired)');
  const unregister = await app.inject({
    method: 'POST',
    url: '/v0/city/x/unregister',
    headers: { 'x-gc-request': '1' },
  });
  t.equal(unregister.statusCode, 501);
  t.equal(
    unregister.json().detail,
    'city unregister is not available in this supervisor (no initializer wired)',
  );
  t.same((await app.inject({ url: '/v0/cities' })).json(), { items: [], total: 0 });
});
