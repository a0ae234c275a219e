import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { cityLogFile } from '../../actors/supervisor/cityActor.ts';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournalBackend } from '../../actors/runtime/journal/memoryJournal.ts';
import { Supervisor, type SupervisorOptions } from '../../actors/supervisor/supervisor.ts';
import { supervisorLogFile } from '../../actors/supervisor/supervisorLog.ts';
import { FAMILIES } from '../../http/families.ts';
import { servicesOf } from '../../http/family.ts';
import { eventually, fakeHost, gate, gatedService } from '../helpers/supervisor.ts';

/**
 * A supervisor over memory journals whose store outlives it: abandoning one without `close` and starting
 * another on the same store and home is a crash and a restart.
 */
function world() {
  const root = mkdtempSync(join(tmpdir(), 'gc-replay-'));
  const home = join(root, 'gchome');
  const store = new Map<string, JournalEvent[]>();
  // No ticks: every pass in these tests comes from a poke, so a "crashed" supervisor stays quiet.
  const config = loadConfig({ GC_HOME: home, GC_TICK: '1h' });
  const start = (options: SupervisorOptions = {}) =>
    Supervisor.start(config, new MemoryJournalBackend(store), {
      host: fakeHost(join(root, 'home')),
      services: servicesOf(FAMILIES),
      ...options,
    });
  const supLog = () => store.get(supervisorLogFile(home)) ?? [];
  const terminals = (id: string) =>
    supLog().filter(
      (e) => e.type !== 'request.accepted' && (e.payload as { request_id?: string }).request_id === id,
    );
  return { root, home, store, start, supLog, terminals };
}

t.test(
  'a create accepted before a crash completes after the restart, exactly once, even if the old run wakes up',
  async (t) => {
    const w = world();
    const stuck = gate();
    const crashed = await w.start({ services: [gatedService(stuck)] });
    const dir = join(w.root, 'alpha');
    const { request_id } = await crashed.createCity({ dir, start_command: 'x' });
    await eventually(() => crashed.cities.get('alpha')?.state === 'starting');

    const restarted = await w.start();
    t.same(w.supLog().at(-1)?.payload, { previous_exit: 'crash' });
    await eventually(() => w.terminals(request_id).length > 0);
    await restarted.settled();
    t.match(w.terminals(request_id), [
      { type: 'request.result.city.create', payload: { request_id, name: 'alpha', path: dir } },
    ]);
    t.equal(restarted.cities.get('alpha')?.running, true);

    // The crashed run was only stalled: it resumes and tries to finish the same work. Fencing turns each of
    // its stale appends into a catch-up, after which there is nothing left for it to record.
    stuck.open();
    await eventually(() => crashed.cities.get('alpha')?.state === 'running');
    await crashed.settled();
    t.equal(w.terminals(request_id).length, 1, 'still exactly one terminal');
    t.same(
      (w.store.get(cityLogFile(dir)) ?? []).map((e) => e.type),
      ['city.created', 'controller.started'],
      'the city log records the start once',
    );
    await restarted.close();
  },
);

t.test('a terminal recorded before a crash is not recorded again', async (t) => {
  const w = world();
  const first = await w.start();
  const { request_id } = await first.createCity({ dir: join(w.root, 'beta'), start_command: 'x' });
  await eventually(() => w.terminals(request_id).length === 1);
  await first.settled();
  const second = await w.start();
  await second.settled();
  t.equal(w.terminals(request_id).length, 1);
  t.equal(second.cities.get('beta')?.running, true, 'the registered city runs again');
  await second.close();
  const third = await w.start();
  t.same(w.supLog().at(-1)?.payload, { previous_exit: 'clean' });
  await third.close();
});

t.test('an unregister accepted before a crash completes after the restart', async (t) => {
  const w = world();
  const neverStops = gate();
  const first = await w.start({ services: [gatedService(undefined, neverStops)] });
  const created = await first.createCity({ dir: join(w.root, 'gamma'), start_command: 'x' });
  await eventually(() => w.terminals(created.request_id).length === 1);
  await first.settled();
  const { request_id } = await first.unregisterCity('gamma');
  await eventually(() => first.cities.get('gamma')?.state === 'unregistering');

  const second = await w.start();
  await eventually(() => w.terminals(request_id).length > 0);
  await second.settled();
  t.match(w.terminals(request_id), [
    { type: 'request.result.city.unregister', payload: { request_id, name: 'gamma' } },
  ]);
  t.notOk(second.cities.has('gamma'), 'not registered any more');
  await second.close();
});

t.test('a registered city whose log lacks city.created gets it recorded at boot', async (t) => {
  const w = world();
  const dir = join(w.root, 'delta');
  mkdirSync(join(dir, '.gc'), { recursive: true });
  writeFileSync(join(dir, 'city.toml'), '[workspace]\nname = "delta"\nstart_command = "x"\n');
  mkdirSync(w.home, { recursive: true });
  writeFileSync(join(w.home, 'cities.toml'), `[[cities]]\nname = "delta"\npath = "${dir}"\n`);
  const sup = await w.start();
  await eventually(() => sup.cities.get('delta')?.running === true);
  t.same(
    (w.store.get(cityLogFile(dir)) ?? []).map((e) => e.type),
    ['city.created', 'controller.started'],
  );
  await sup.close();
});

t.test('a supervisor that is stopping admits no request', async (t) => {
  const w = world();
  const sup = await w.start();
  await sup.close();
  const refused = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: unknown) => err,
    );
  t.match(await refused(sup.createCity({ dir: join(w.root, 'eps'), start_command: 'x' })), {
    status: 503,
    detail: 'unavailable: supervisor is stopping',
  });
  t.match(await refused(sup.unregisterCity('eps')), { status: 503 });
});
