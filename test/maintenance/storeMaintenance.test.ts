/**
 * Store maintenance on the city log (file journal): a run snapshots the log up to its head, removes
 * `*.partial` leftovers, smoke-tests the snapshot and keeps the newest four; outcomes are
 * `gc.store.maintenance.done|failed` and a history of 16; one run at a time; the schedule of
 * `[maintenance.dolt]` starts at once on a fresh city and one interval after the last recorded run after a
 * restart; disabled is a 503. Over HTTP: 202, ?wait=true 200 with the run, status.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ConflictError, UnavailableError } from '../../actors/runtime/errors.ts';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import { maintenanceServiceFactory, MAINTENANCE_SERVICE } from '../../actors/maintenance/startMaintenance.ts';
import { StoreMaintenance } from '../../actors/maintenance/storeMaintenance.ts';
import { memoryApp } from '../helpers/app.ts';
import { waitForEvent } from '../helpers/supervisor.ts';

const HOUR = 3_600_000;

async function city(t: Test, events = 3) {
  const path = await mkdtemp(join(tmpdir(), 'gc-maint-'));
  const backend = new FileJournalBackend();
  const journal = await backend.open({
    name: `m${randomBytes(3).toString('hex')}`,
    file: join(path, '.gc', 'events.jsonl'),
  });
  const log = new LogRuntime(journal);
  t.teardown(async () => {
    await log.close();
    await backend.close();
    await rm(path, { recursive: true, force: true });
  });
  for (let i = 0; i < events; i++) await log.appendCustom({ type: 'note', actor: 'me', message: `n${i}` });
  // A clock a second on per reading: every run has its own snapshot name, however fast it goes.
  let now = Date.parse('2026-03-01T00:00:00Z');
  const clock = () => new Date((now += 1000));
  return { name: journal.name, path, journal, log, clock, jitter: () => 1 };
}

t.test(
  'a run snapshots the log, collects leftovers, smoke-tests and prunes; the history keeps them',
  async (t) => {
    const c = await city(t);
    await mkdir(join(c.path, '.gc', 'old'), { recursive: true });
    await writeFile(join(c.path, '.gc', 'old', 'events-x.jsonl.gz.partial'), 'torn');
    const m = await StoreMaintenance.start({ ...c, config: { enabled: true, intervalMs: HOUR } });
    t.teardown(() => m.stop());
    // A fresh city runs at once (upstream: first run immediately on a fresh install).
    const first = await waitForEvent(c.journal, (e) => e.type === 'gc.store.maintenance.done');
    t.ok(first.seq > 3);
    const status = m.status();
    t.match(status, { enabled: true, interval_seconds: 3600, in_flight: false, last_run: { stage: 'done' } });
    t.equal(status.history?.length, 1);
    const run = status.last_run!;
    t.same(first.payload, {
      before_bytes: run.before_bytes,
      after_bytes: run.after_bytes,
      duration_s: run.duration_s,
      snapshot_path: run.snapshot_path,
    });
    t.ok(
      run.before_bytes > 0 && run.after_bytes === run.before_bytes,
      'nothing to collect in the log itself',
    );
    const lines = readFileSync(join(run.snapshot_path!, 'events.jsonl'), 'utf8').trimEnd().split('\n');
    t.same(
      lines.map((l) => (JSON.parse(l) as { seq: number }).seq),
      [1, 2, 3],
      'the snapshot holds the log up to its head',
    );
    t.notOk(existsSync(join(c.path, '.gc', 'old', 'events-x.jsonl.gz.partial')), 'leftovers collected');
    t.equal(
      Date.parse(status.next_scheduled!) - Date.parse(run.finished_at),
      HOUR,
      'next run one interval after the last',
    );

    const { done } = m.trigger();
    t.throws(() => m.trigger(), ConflictError, 'one run at a time');
    t.equal((await done).stage, 'done');
    for (let i = 0; i < 4; i++) await m.trigger().done;
    t.equal(m.status().history?.length, 6);
    t.equal(
      readdirSync(join(c.path, '.gc', 'maintenance', 'snapshots')).length,
      4,
      'the newest four are kept',
    );
  },
);

t.test('a failed stage is an outcome: gc.store.maintenance.failed with the stage and error', async (t) => {
  const c = await city(t);
  await mkdir(join(c.path, '.gc', 'maintenance'), { recursive: true });
  await writeFile(join(c.path, '.gc', 'maintenance', 'snapshots'), 'not a directory');
  const m = await StoreMaintenance.start({ ...c, config: { enabled: true, intervalMs: HOUR } });
  t.teardown(() => m.stop());
  const failed = await waitForEvent(c.journal, (e) => e.type === 'gc.store.maintenance.failed');
  t.match(failed.payload, { stage: 'backup', error_msg: /ENOTDIR|EEXIST/ });
  t.match(m.status().last_run, { stage: 'backup', err: /ENOTDIR|EEXIST/ });
});

t.test('after a restart the schedule follows the last recorded run; disabled refuses', async (t) => {
  const c = await city(t);
  const m = await StoreMaintenance.start({ ...c, config: { enabled: true, intervalMs: HOUR } });
  const done = await waitForEvent(c.journal, (e) => e.type === 'gc.store.maintenance.done');
  await m.stop();
  const again = await StoreMaintenance.start({ ...c, config: { enabled: true, intervalMs: HOUR } });
  t.teardown(() => again.stop());
  t.equal(Date.parse(again.status().next_scheduled!), Date.parse(done.ts) + HOUR, 'not at once');
  t.same(again.status().history, [], 'the history is this process’s');
  const off = await StoreMaintenance.start({ ...c, config: { enabled: false, intervalMs: HOUR } });
  t.same(off.status(), { enabled: false, interval_seconds: 0, in_flight: false, history: [] });
  t.throws(() => off.trigger(), UnavailableError);
  const refusal = (() => {
    try {
      off.trigger();
    } catch (err) {
      return err as UnavailableError;
    }
    return undefined;
  })();
  t.match(refusal?.detail, /^maintenance_disabled: /);
});

t.test('the maintenance routes', async (t) => {
  const c = await city(t);
  await writeFile(join(c.path, 'city.toml'), '[maintenance.dolt]\nenabled = true\ninterval = "2h"\n');
  const started = await maintenanceServiceFactory({ jitter: () => 1 }).start({
    ...c,
    config: { agents: [] },
  });
  t.teardown(() => started.stop());
  await waitForEvent(c.journal, (e) => e.type === 'gc.store.maintenance.done');
  const { app, deps } = await memoryApp();
  t.teardown(() => app.close());
  deps.cities.set({ ...c, running: true, services: { [MAINTENANCE_SERVICE]: started.service } });
  const base = `/v0/city/${c.name}/maintenance`;
  const status = await app.inject({ url: `${base}/status` });
  t.equal(status.statusCode, 200);
  t.equal(status.headers['x-gc-cache-age-s'], '0');
  t.match(status.json(), { enabled: true, interval_seconds: 7200, history: [{ stage: 'done' }] });
  const waited = await app.inject({
    method: 'POST',
    url: `${base}/dolt-gc?wait=true`,
    headers: { 'x-gc-request': '1' },
  });
  t.equal(waited.statusCode, 200);
  t.match(waited.json(), { accepted: true, started_at: String, run: { stage: 'done' } });
  const from = await c.journal.head();
  const accepted = await app.inject({
    method: 'POST',
    url: `${base}/dolt-gc`,
    headers: { 'x-gc-request': '1' },
  });
  t.equal(accepted.statusCode, 202);
  t.same(Object.keys(accepted.json()).sort(), ['accepted', 'started_at']);
  await waitForEvent(c.journal, (e) => e.type === 'gc.store.maintenance.done', from);
  const bad = await app.inject({
    method: 'POST',
    url: `${base}/dolt-gc?wait=2`,
    headers: { 'x-gc-request': '1' },
  });
  t.equal(bad.statusCode, 422);
  const csrf = await app.inject({ method: 'POST', url: `${base}/dolt-gc` });
  t.equal(csrf.statusCode, 403);
});

t.test('a hand edit of [maintenance.dolt] takes effect without a restart', async (t) => {
  const c = await city(t);
  await writeFile(join(c.path, 'city.toml'), '[workspace]\nname = "x"\n');
  const started = await maintenanceServiceFactory({ jitter: () => 1, pollMs: 0 }).start({
    ...c,
    config: { agents: [] },
  });
  t.teardown(() => started.stop());
  const { app, deps } = await memoryApp();
  t.teardown(() => app.close());
  deps.cities.set({ ...c, running: true, services: { [MAINTENANCE_SERVICE]: started.service } });
  const base = `/v0/city/${c.name}/maintenance`;
  const trigger = () =>
    app.inject({ method: 'POST', url: `${base}/dolt-gc?wait=true`, headers: { 'x-gc-request': '1' } });
  t.match((await app.inject({ url: `${base}/status` })).json(), { enabled: false });
  t.equal((await trigger()).statusCode, 503, 'disabled as started');
  await writeFile(join(c.path, 'city.toml'), '[maintenance.dolt]\nenabled = true\ninterval = "3h"\n');
  const status = (await app.inject({ url: `${base}/status` })).json();
  t.match(status, { enabled: true, interval_seconds: 10800 }, 'enabled by the edit');
  t.ok(status.next_scheduled, 'and scheduled');
  // Never run before, the first scheduled run starts at once: a trigger now runs or meets it in flight.
  t.not((await trigger()).statusCode, 503, 'no longer disabled');
  await waitForEvent(c.journal, (e) => e.type === 'gc.store.maintenance.done');
  await writeFile(join(c.path, 'city.toml'), '[maintenance.dolt]\nenabled = true\ninterval = "nope"\n');
  t.match(
    (await app.inject({ url: `${base}/status` })).json(),
    { enabled: true, interval_seconds: 10800 },
    'a bad edit keeps the schedule',
  );
  await writeFile(join(c.path, 'city.toml'), '[maintenance.dolt]\nenabled = false\n');
  const off = (await app.inject({ url: `${base}/status` })).json();
  t.match(off, { enabled: false });
  t.notOk(off.next_scheduled, 'nothing scheduled once disabled');
});
