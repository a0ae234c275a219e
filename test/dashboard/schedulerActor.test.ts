/**
 * A city's order scheduler is an actor of the scheduler machine: on a real supervisor whose city runs the
 * orders service on a short tick, the live view lists `scheduler:<city>` under its city, its ticks move it
 * idle → ticking → idle with the orders counted and the firings of the last tick, and it ends (status
 * done) when the city stops.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { EventObject } from 'xstate';
import { beadStoreService } from '../../actors/beads/index.ts';
import { formulaServiceFactory } from '../../actors/formulas/startFormulaService.ts';
import { orderServiceFactory } from '../../actors/orders/startOrderService.ts';
import type { ActorEntry } from '../../schemas/actors.ts';
import { openSse } from '../helpers/sse.ts';
import { fakeHost, startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

t.test('the scheduler is a live actor under its city, moved by its ticks', async (t) => {
  const probe = await startTestSupervisor(t);
  await probe.close();
  const s = await startTestSupervisor(t, {
    tickMs: 200,
    root: probe.root,
    options: {
      services: [beadStoreService, formulaServiceFactory, orderServiceFactory({ tickMs: 50 })],
      host: fakeHost(probe.home, { bins: ['sh', 'node'] }),
    },
  });
  const transitions: string[] = [];
  s.running.supervisor.inspection.attachInspector({
    actor: (id, _actor, parent) => transitions.push(`actor ${id} under ${parent}`),
    transition: (id, _actor, event?: EventObject) => transitions.push(`${id} ${event?.type ?? '-'}`),
    stop: () => undefined,
  });
  const dir = join(s.home, 'mill');
  mkdirSync(join(dir, 'orders'), { recursive: true });
  mkdirSync(join(dir, 'formulas'), { recursive: true });
  writeFileSync(join(dir, 'formulas', 'sweep.toml'), '[[steps]]\nid = "sweep"\n');
  writeFileSync(
    join(dir, 'orders', 'sweep.toml'),
    '[order]\nformula = "sweep"\ngate = "cooldown"\ninterval = "1h"\n',
  );
  const sse = await openSse(`${s.url}/v0/actors/stream`);
  t.teardown(() => sse.close());
  t.equal((await sse.nextEvent(5000)).event, 'actors');
  const created = await s.call('POST', '/v0/city', { dir, provider: 'mock' });
  await waitForTerminal(s.log, created.body.request_id, 20_000);

  const frames: ActorEntry[] = [];
  const until = async (done: (e: ActorEntry) => boolean): Promise<ActorEntry> => {
    for (;;) {
      const frame = await sse.nextEvent(20_000);
      if (frame.event !== 'actor') continue;
      const entry = JSON.parse(frame.data) as ActorEntry;
      if (entry.kind !== 'scheduler') continue;
      frames.push(entry);
      if (done(entry)) return entry;
    }
  };
  const fired = await until((e) => e.state === 'idle' && e.context['last_fired'] === 1);
  t.equal(fired.id, 'scheduler:mill');
  t.equal(fired.city, 'mill');
  t.equal(fired.context['orders'], 1, 'the orders it knows');
  t.ok(
    frames.some((e) => e.state === 'ticking'),
    'seen ticking',
  );
  t.ok(transitions.includes('actor scheduler:mill under city:mill'), 'a child of its city in the inspector');
  t.ok(transitions.includes('scheduler:mill TICK') && transitions.includes('scheduler:mill TICKED'));
  const quiet = await until((e) => e.state === 'idle' && e.context['last_fired'] === 0);
  t.ok(
    Number(quiet.context['ticks']) > Number(fired.context['ticks']),
    'later ticks fire nothing (cooldown)',
  );

  const stopped = await s.call('POST', '/v0/city/mill/stop');
  t.ok(stopped.status < 300, `stop answered ${stopped.status}`);
  const done = await until((e) => e.status === 'done');
  t.equal(done.state, 'stopped');
  const after = await s.call('GET', '/v0/actors');
  t.notOk(
    after.body.items.some((e: ActorEntry) => e.kind === 'scheduler'),
    'not listed once stopped',
  );
});
