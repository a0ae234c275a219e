/**
 * `gc events rotate` as the built binary against a city whose maintenance service runs on a real file log:
 * an empty segment's no-op, a rotation with --wait (archive complete, anchor recorded), and the failures
 * (a city that is not running, no city in scope) as one stderr line and exit status 1.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import { maintenanceServiceFactory, MAINTENANCE_SERVICE } from '../../actors/maintenance/startMaintenance.ts';
import { memoryApp } from '../helpers/app.ts';
import { BACKEND_CASES } from '../helpers/eventBackends.ts';
import { isolatedEnv, runGc } from './helpers/gc.ts';

const NAME = 'rotcli';
const open = await BACKEND_CASES.find((b) => b.name === 'file')!.setup(t);
const journal = await open!(NAME);
const path = await mkdtemp(join(tmpdir(), 'gc-rotcli-'));
t.teardown(() => rm(path, { recursive: true, force: true }));
const log = new LogRuntime(journal);
t.teardown(() => log.close());
await writeFile(join(path, 'city.toml'), `[workspace]\nname = "${NAME}"\n`);
const city = { name: NAME, path, journal, log };
const started = await maintenanceServiceFactory().start({ ...city, config: { agents: [] } });
t.teardown(() => started.stop());
const { app, deps } = await memoryApp();
deps.cities.set({ ...city, running: true, services: { [MAINTENANCE_SERVICE]: started.service } });
await app.listen({ port: 0, host: '127.0.0.1' });
t.teardown(() => app.close());
const api = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const env = isolatedEnv(path);

t.test('nothing to archive: upstream’s no-op answer, exit 0', async (t) => {
  const res = await runGc(['events', 'rotate', '--api', api, '--city', NAME], { env });
  t.equal(res.code, 0, res.stderr);
  t.equal(res.stdout, '{"rotated":false,"reason":"active log is empty"}\n', 'one compact JSON line');
  t.equal(await journal.head(), 0, 'nothing recorded');
});

t.test('--wait prints the complete archive and the anchor; GC_CITY names the city', async (t) => {
  for (let i = 1; i <= 3; i++) await log.appendCustom({ type: 'note', actor: 'me', message: `n${i}` });
  const res = await runGc(['events', 'rotate', '--wait', '--api', api], { env: { ...env, GC_CITY: NAME } });
  t.equal(res.code, 0, res.stderr);
  t.equal(res.stdout.split('\n').length, 2, 'one line');
  const answer = JSON.parse(res.stdout) as { archive: { path: string } };
  t.match(answer, {
    rotated: true,
    archive: { first_seq: 1, last_seq: 3, compression_status: 'complete' },
    anchor_event: { seq: 4, type: 'events.rotated' },
  });
  t.ok(existsSync(answer.archive.path), 'the archive is written');
  t.match((await journal.list({ afterSeq: 3 }))[0], { type: 'events.rotated' });
});

t.test('failures: one stderr line, exit 1, nothing rotated', async (t) => {
  const head = await journal.head();
  const ghost = await runGc(['events', 'rotate', '--api', api, '--city', 'ghost'], { env });
  t.equal(ghost.code, 1);
  t.equal(ghost.stdout, '');
  t.match(ghost.stderr, /^gc events rotate: .*not_found: city not found or not running: ghost\n$/);
  const none = await runGc(['events', 'rotate', '--api', api], { env, cwd: tmpdir() });
  t.equal(none.code, 1);
  t.match(none.stderr, /^gc events rotate: no city in scope/);
  const bad = await runGc(['events', 'rotate', '--wait=soon', '--api', api, '--city', NAME], { env });
  t.equal(bad.code, 1);
  t.match(bad.stderr, /^gc events rotate: /);
  t.equal(await journal.head(), head, 'nothing rotated');
});
