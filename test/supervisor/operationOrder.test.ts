import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { cityLogFile } from '../../actors/supervisor/cityActor.ts';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { Supervisor, type SupervisorOptions } from '../../actors/supervisor/supervisor.ts';
import { supervisorLogFile } from '../../actors/supervisor/supervisorLog.ts';
import { FAMILIES } from '../../http/families.ts';
import { servicesOf } from '../../http/family.ts';
import { refusingBackend } from '../helpers/refusingBackend.ts';
import { eventually, fakeHost, startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

/**
 * The events of one operation, across the supervisor's log and the city's, are recorded in the
 * operation's order (`request.accepted` first, the terminal event last) and carry strictly increasing
 * timestamps in that order, so the ts-ordered supervisor list shows them as they happened.
 */

const requestIdOf = (e: JournalEvent): string | undefined =>
  (e.payload as { request_id?: string } | undefined)?.request_id;

/** The operation's events in its order: accepted, the city's events of `cityTypes`, the terminal. */
function operationEvents(
  supervisor: JournalEvent[],
  city: JournalEvent[],
  requestId: string,
  cityTypes: string[],
): JournalEvent[] {
  const mine = supervisor.filter((e) => requestIdOf(e) === requestId);
  return [
    mine.find((e) => e.type === 'request.accepted')!,
    ...cityTypes.map((type) => city.find((e) => e.type === type)!),
    mine.find((e) => e.type !== 'request.accepted')!,
  ];
}

function assertInOrder(t: Test, events: JournalEvent[], what: string): void {
  t.notOk(events.includes(undefined as never), `${what}: every event was recorded`);
  for (let i = 1; i < events.length; i++) {
    const [before, after] = [events[i - 1]!, events[i]!];
    t.ok(
      Date.parse(before.ts) < Date.parse(after.ts),
      `${what}: ${after.type} (${after.ts}) is stamped after ${before.type} (${before.ts})`,
    );
  }
}

async function createAndUnregister(t: Test, options: Omit<SupervisorOptions, 'logger'> = {}): Promise<void> {
  const s = await startTestSupervisor(t, { options });
  const dir = join(s.root, 'alpha');
  const created = await s.call('POST', '/v0/city', { dir, start_command: 'x' });
  t.equal(created.status, 202);
  await waitForTerminal(s.log, created.body.request_id);
  const unregistered = await s.call('POST', '/v0/city/alpha/unregister');
  t.equal(unregistered.status, 202);
  await waitForTerminal(s.log, unregistered.body.request_id);
  await s.running.supervisor.settled();

  // The unregistered city's handle is closed: read its log afresh.
  const reader = new FileJournalBackend();
  const city = await (await reader.open({ name: 'alpha', file: cityLogFile(dir) })).list();
  await reader.close();
  const sup = await s.log.list();
  const create = operationEvents(sup, city, created.body.request_id, ['city.created', 'controller.started']);
  assertInOrder(t, create, 'create');
  t.ok(
    sup.findIndex((e) => e === create[0]) < sup.findIndex((e) => e === create.at(-1)),
    'create: accepted before its terminal in the supervisor log',
  );
  assertInOrder(
    t,
    operationEvents(sup, city, unregistered.body.request_id, [
      'city.unregister_requested',
      'controller.stopped',
    ]),
    'unregister',
  );
}

t.test('create and unregister: each operation’s events are stamped in its order', (t) =>
  createAndUnregister(t),
);

t.test('the order holds even when the wall clock steps backwards between events', (t) => {
  let at = Date.parse('2030-01-01T00:00:00.000Z');
  return createAndUnregister(t, { now: () => new Date((at -= 1000)) });
});

/** A temp root for a supervisor started by hand; removed after `t`. */
function tempRoot(t: Test): { root: string; home: string; gcHome: string } {
  const root = mkdtempSync(join(tmpdir(), 'gc-order-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  mkdirSync(home);
  return { root, home, gcHome: join(root, 'gchome') };
}

t.test(
  'a request accepted by an earlier run whose clock was ahead is terminated with a later ts',
  async (t) => {
    const { home, gcHome } = tempRoot(t);
    const ahead = new Date(Date.now() + 3_600_000).toISOString();
    const seed = new FileJournalBackend();
    const log = await seed.open({ name: '__supervisor__', file: supervisorLogFile(gcHome) });
    const request_id = `req-${'0'.repeat(24)}`;
    const accepted = await log.append({
      type: 'request.accepted',
      ts: ahead,
      actor: 'api',
      subject: 'ghost',
      payload: { request_id, operation: 'city.unregister', name: 'ghost', path: join(home, 'ghost') },
    });
    await seed.close();

    const backend = new FileJournalBackend();
    const config = loadConfig({ GC_HOME: gcHome, GC_PORT: '0', GC_TICK: '200ms' });
    const sup = await Supervisor.start(config, backend, {
      host: fakeHost(home),
      services: servicesOf(FAMILIES),
    });
    t.teardown(async () => {
      await sup.close();
      await backend.close();
    });
    const terminal = await waitForTerminal(sup.log.journal, request_id);
    t.ok(
      Date.parse(terminal.ts) > Date.parse(accepted.ts),
      `the terminal (${terminal.ts}) is stamped after the acceptance (${accepted.ts})`,
    );
  },
);

t.test('the city log refuses city.created: 503, the request failed, nothing left behind', async (t) => {
  const { home, gcHome } = tempRoot(t);
  const refused = new Set<string>(['city.created']);
  const backend = refusingBackend(new FileJournalBackend(), (_log, draft) => refused.has(draft.type));
  const config = loadConfig({ GC_HOME: gcHome, GC_PORT: '0', GC_TICK: '200ms' });
  const sup = await Supervisor.start(config, backend, {
    host: fakeHost(home),
    services: servicesOf(FAMILIES),
  });
  t.teardown(async () => {
    await sup.close();
    await backend.close();
  });
  const dir = join(home, 'gamma');
  const err = await sup.createCity({ dir, start_command: 'x' }).catch((e: unknown) => e);
  t.match(err, { status: 503, detail: /^journal_unavailable: / }, 'the client gets the journal outage');
  t.equal(sup.claims.size, 0, 'the claim is released');
  t.notOk(sup.registry.get('gamma'), 'not registered');
  t.same(sup.listCities(), []);
  t.notOk(sup.live.get('gamma'), 'not attached');

  const events = await sup.log.journal.list();
  const accepted = events.filter((e) => e.type === 'request.accepted');
  t.equal(accepted.length, 1, 'the request was accepted before the city event');
  const id = requestIdOf(accepted[0]!)!;
  await eventually(async () => (await sup.log.journal.list()).some((e) => e.type === 'request.failed'));
  const terminals = (await sup.log.journal.list()).filter(
    (e) => e.type !== 'request.accepted' && requestIdOf(e) === id,
  );
  t.equal(terminals.length, 1, 'exactly one terminal event');
  t.match(terminals[0], {
    type: 'request.failed',
    payload: { request_id: id, operation: 'city.create', error_code: 'city_init_failed' },
  });

  refused.clear();
  const retry = await sup.createCity({ dir, start_command: 'x' });
  const done = await waitForTerminal(sup.log.journal, retry.request_id);
  t.equal(done.type, 'request.result.city.create', 'a retry once the log takes writes is created');
  const city = await sup.live.get('gamma')!.journal.list();
  t.same(
    city.map((e) => e.type),
    ['city.created', 'controller.started'],
    'the retry’s city log starts afresh',
  );
});
