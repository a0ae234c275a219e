/**
 * Agents as machine actors: the reporter alone, fed the agent views the service computes, turns them into
 * agent-machine actors under their city (created, moved by the event their states name, removed); and on a
 * real supervisor running the mock agent on tmux, an agent appears in GET /v0/actors with its state, moves
 * when work routed to it wakes its session, and leaves when it is deleted.
 */
import t from 'tap';
import { recorder } from '../helpers/inspectorRecorder.ts';
import type { AgentView } from '../../actors/agents/agentApi.ts';
import { ActorInspection } from '../../actors/inspect/actorInspection.ts';
import { AgentActorReporter } from '../../actors/agents/agentActors.ts';
import type { ActorEntry } from '../../schemas/actors.ts';
import { hasTmux } from '../sessions/e2eKit.ts';
import { eventually } from '../helpers/supervisor.ts';
import { agentSupervisor, createMockCity } from '../agents/agentsKit.ts';

const view = (name: string, state: string, extra: Partial<AgentView> = {}): AgentView => ({
  name,
  state,
  running: state === 'idle' || state === 'working' || state === 'waiting',
  suspended: state === 'suspended',
  available: true,
  provider: 'mock',
  ...extra,
});

t.test('the reporter turns agent views into agent-machine actors under their city', (t) => {
  const hub = new ActorInspection();
  const { target, calls } = recorder();
  hub.attachInspector(target);
  const reporter = new AgentActorReporter('yard', hub);
  const worker = view('worker-1', 'idle', { pool: 'worker', session: { name: 's-w1', attached: false } });
  reporter.refresh([view('scout', 'stopped'), worker]);
  reporter.refresh([view('scout', 'stopped'), { ...worker }]);
  reporter.refresh([view('scout', 'stopped'), { ...worker, state: 'working', active_bead: 'yd-7' }]);
  reporter.refresh([view('scout', 'stopped'), { ...worker, state: 'working' }]);
  reporter.refresh([view('scout', 'suspended')]);
  t.same(calls, [
    'actor agent:yard/scout stopped under city:yard',
    'actor agent:yard/worker-1 idle under city:yard',
    'transition agent:yard/worker-1 WORK working active',
    'transition agent:yard/worker-1 UPDATE working active',
    'transition agent:yard/scout SUSPEND suspended active',
    'transition agent:yard/worker-1 REMOVE gone done',
  ]);
  const [scout] = hub.list();
  t.equal(scout?.id, 'agent:yard/scout', 'an unchanged refresh reports nothing; a removed agent leaves');
  t.equal(hub.list().length, 1);
  t.match(scout?.actor.snapshot.context, { city: 'yard', name: 'scout', provider: 'mock', running: false });

  const again = new AgentActorReporter('yard', hub);
  again.refresh([view('bad', 'unknown-state')]);
  t.equal(hub.list().length, 1, 'a state the machine does not know is not shown');

  reporter.stop();
  t.equal(calls.at(-1), 'transition agent:yard/scout REMOVE gone done', 'the city stopping ends the rest');
  t.same(hub.list(), []);
  t.end();
});

const CITY = 'dock';
const base = `/v0/city/${CITY}`;

// CI installs tmux: there a missing tmux is a failure, elsewhere a visible skip.
if (!hasTmux() && process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
else if (!hasTmux()) t.test('agents on a real supervisor', (t) => t.plan(0, 'tmux is not on PATH'));
else
  t.test('a real agent is listed with its state, moves when it runs, and leaves when deleted', async (t) => {
    const s = await (await agentSupervisor(t, CITY))();
    const { target, calls } = recorder();
    s.running.supervisor.inspection.attachInspector(target);
    await createMockCity(t, s, CITY);
    await eventually(async () => (await s.call('GET', `${base}/agents`)).status === 200, 20_000);

    const id = `agent:${CITY}/deckhand`;
    const listed = async (which = id): Promise<ActorEntry | undefined> =>
      ((await s.call('GET', '/v0/actors')).body.items as ActorEntry[]).find((e) => e.id === which);
    for (const name of ['deckhand', 'bosun']) {
      const add = await s.call('POST', `${base}/agents`, { name, provider: 'mock' });
      t.equal(add.status, 201, JSON.stringify(add.body));
    }
    await eventually(async () => (await listed())?.state === 'stopped', 20_000);
    const stopped = await listed();
    t.match(stopped, { kind: 'agent', city: CITY, status: 'active' });
    t.match(stopped?.context, { city: CITY, name: 'deckhand', provider: 'mock', running: false });
    t.ok(
      calls.includes(`actor ${id} stopped under city:${CITY}`),
      'announced to the inspector under its city',
    );

    // An edit is shown when it lands, not at the next pass (bosun has no session to close meanwhile).
    await eventually(async () => (await listed(`agent:${CITY}/bosun`)) !== undefined, 20_000);
    t.equal((await s.call('DELETE', `${base}/agent/bosun`)).status, 200);
    t.equal(await listed(`agent:${CITY}/bosun`), undefined, 'a deleted agent is gone at once');

    // Work routed to it wakes a session for it.
    const work = await s.call('POST', `${base}/beads`, {
      title: 'coil the ropes',
      metadata: { 'gc.routed_to': 'deckhand' },
    });
    t.equal(work.status, 201, JSON.stringify(work.body));
    await eventually(async () => (await listed())?.state === 'idle', 30_000);
    const idle = await listed();
    t.equal(idle?.context['running'], true, 'running with its session');
    t.type(idle?.context['session'], 'string');
    t.ok(calls.includes(`transition ${id} IDLE idle active`), 'its move sent as the IDLE event');

    t.equal((await s.call('DELETE', `${base}/agent/deckhand`)).status, 200);
    t.equal(await listed(), undefined, 'a deleted running agent is not listed');
    t.ok(calls.includes(`transition ${id} REMOVE gone done`), 'it reached the final state');
  });
