/**
 * The live actor view's API: GET /v0/actors lists every live actor, /v0/actors/stream sends that list and
 * then each change, and nothing keeps watching once the last stream is gone.
 */
import { join } from 'node:path';
import t from 'tap';
import { beadStoreService } from '../../actors/beads/index.ts';
import { ActorInspection, type InspectorTarget } from '../../actors/inspect/actorInspection.ts';
import { contextSummary } from '../../actors/inspect/contextSummary.ts';
import type { ActorEntry } from '../../schemas/actors.ts';
import { openSse } from '../helpers/sse.ts';
import { eventually, fakeHost, startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

t.test('lists the supervisor, a city and its request, and streams each change as it happens', async (t) => {
  const probe = await startTestSupervisor(t);
  await probe.close();
  const s = await startTestSupervisor(t, {
    root: probe.root,
    tickMs: 200,
    options: { services: [beadStoreService], host: fakeHost(probe.home, { bins: ['sh', 'node'] }) },
  });
  const first = await s.call('GET', '/v0/actors');
  t.equal(first.status, 200);
  t.same(
    first.body.items.map((a: ActorEntry) => [a.id, a.kind, a.state, a.status]),
    [['supervisor', 'supervisor', 'running', 'active']],
  );

  const sse = await openSse(`${s.url}/v0/actors/stream`);
  const list = await sse.nextEvent(5000);
  t.equal(list.event, 'actors', 'the list comes first');
  t.equal(JSON.parse(list.data).total, 1);
  t.equal(s.running.supervisor.inspection.watchers, 1, 'one stream, one watcher');

  const created = await s.call('POST', '/v0/city', { dir: join(s.home, 'harbor'), provider: 'mock' });
  t.equal(created.status, 202);
  const requestId = created.body.request_id as string;
  const seen: ActorEntry[] = [];
  for (;;) {
    const frame = await sse.nextEvent(10_000);
    if (frame.event !== 'actor') continue;
    const entry = JSON.parse(frame.data) as ActorEntry;
    seen.push(entry);
    if (entry.id === 'city:harbor' && JSON.stringify(entry.state).includes('running')) break;
  }
  await waitForTerminal(s.log, requestId, 10_000);
  const request = seen.filter((e) => e.id === `request:${requestId}`);
  t.ok(request.length >= 1, 'the request actor was seen');
  t.equal(seen.find((e) => e.id === 'city:harbor')?.city, 'harbor');
  t.equal(seen.find((e) => e.id === 'city:harbor')?.context['name'], 'harbor', 'with a context summary');

  const after = await s.call('GET', '/v0/actors');
  const ids = after.body.items.map((a: ActorEntry) => a.id);
  t.ok(ids.includes('city:harbor'), 'the running city is listed');
  t.notOk(ids.includes(`request:${requestId}`), 'a finished request is not');

  sse.close();
  await eventually(() => s.running.supervisor.inspection.watchers === 0);
  t.pass('closing the stream leaves no watcher behind');
});

t.test('the hub forwards nothing while nobody watches, and everything once an inspector is attached', (t) => {
  const hub = new ActorInspection();
  const calls: string[] = [];
  const target: InspectorTarget = {
    actor: (id) => calls.push(`actor ${id}`),
    transition: (id, _a, event) => calls.push(`transition ${id} ${event?.type ?? ''}`),
    stop: () => calls.push('stop'),
  };
  const machine = { id: 'city', config: {} } as never;
  const actor = { machine, snapshot: { status: 'active', value: 'absent', context: { name: 'c' } } } as never;
  hub.created(actor);
  hub.changed(actor, { type: 'REGISTER' });
  t.same(calls, [], 'no watcher: nothing is built or sent');
  hub.attachInspector(target);
  t.same(calls, ['actor city:c'], 'live actors are announced to a new inspector');
  hub.changed(actor, { type: 'START' });
  t.same(calls.at(-1), 'transition city:c START');
  hub.detachInspector();
  t.same(calls.at(-1), 'stop');
  t.end();
});

t.test('a context summary keeps scalars and sizes of collections, cut to bounds', (t) => {
  const long = 'x'.repeat(500);
  const summary = contextSummary({
    a: 1,
    s: long,
    list: [1, 2, 3],
    obj: { k: 1, j: 2 },
    f: () => 1,
    u: undefined,
  });
  t.equal(summary['a'], 1);
  t.equal((summary['s'] as string).length, 121);
  t.equal(summary['list'], '[3]');
  t.equal(summary['obj'], '{2 keys}');
  t.notOk('f' in summary);
  t.same(contextSummary(null), {});
  t.end();
});
