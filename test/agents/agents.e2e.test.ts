/**
 * Agents end to end: a real supervisor over HTTP, real tmux and the mock agent. A city's city.toml gets a
 * pool, a singleton behind an on-demand named session, and an agent that depends on the pool; after a
 * restart the reconciler runs the pool, starts the dependent after it, materialises the named session on its
 * first message, and API edits rewrite city.toml atomically with their event.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { hasTmux } from '../sessions/e2eKit.ts';
import { eventually, type TestSupervisor } from '../helpers/supervisor.ts';
import { agentSupervisor, createMockCity } from './agentsKit.ts';

const CITY = 'yard';
const base = `/v0/city/${CITY}`;

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.plan(0, 'tmux is not on PATH: agents are not tested end to end here');
} else {
  t.test('pools, start waves, on-demand named sessions and agent edits', async (t) => {
    const start = await agentSupervisor(t, CITY);
    let s = await start();
    const dir = await createMockCity(t, s, CITY);
    await s.close();
    appendFileSync(
      join(dir, 'city.toml'),
      [
        '',
        '[[agent]]',
        'name = "worker"',
        'provider = "mock"',
        'min_active_sessions = 2',
        'max_active_sessions = 3',
        '',
        '[[agent]]',
        'name = "cook"',
        'provider = "mock"',
        'min_active_sessions = 1',
        'depends_on = ["worker"]',
        '',
        '[[agent]]',
        'name = "scout"',
        'provider = "mock"',
        '',
        '[[named_session]]',
        'name = "lookout"',
        'template = "scout"',
        'mode = "on_demand"',
        '',
      ].join('\n'),
    );
    s = await start();
    await eventually(async () => (await s.call('GET', `${base}/agents`)).status === 200, 20_000);

    type View = { name: string; running: boolean; state: string; pool?: string; suspended: boolean };
    const agents = async () => ((await s.call('GET', `${base}/agents`)).body.items ?? []) as View[];
    const byName = async (name: string) => (await agents()).find((a) => a.name === name);
    await eventually(async () => {
      const all = await agents();
      return ['worker-1', 'worker-2', 'cook'].every((n) => all.find((a) => a.name === n)?.state === 'idle');
    }, 30_000);
    const all = await agents();
    t.same(
      all.map((a) => a.name).sort(),
      ['cook', 'scout', 'worker-1', 'worker-2', 'worker-3'],
      'one entry per singleton, one per slot of the bounded pool',
    );
    t.equal((await byName('worker-3'))?.running, false, 'the pool runs its minimum, not its maximum');
    t.equal((await byName('worker-1'))?.pool, 'worker');
    t.equal((await byName('worker-1'))?.state, 'idle', 'running without work: idle');
    t.equal((await byName('scout'))?.state, 'stopped');

    // Start waves: cook's session started only once a worker ran.
    const events = (await s.call('GET', `${base}/events?type=session.woke`)).body.items as {
      message?: string;
      seq: number;
    }[];
    const firstWorker = Math.min(...events.filter((e) => e.message?.startsWith('worker')).map((e) => e.seq));
    const cook = events.find((e) => e.message === 'cook');
    t.ok(cook && cook.seq > firstWorker, 'the dependent woke after its dependency');

    // An on-demand named session is created by its first message.
    const msg = await s.call('POST', `${base}/session/lookout/messages`, { message: 'anything?' });
    t.equal(msg.status, 202, JSON.stringify(msg.body));
    const done = await waitForTerminalOnCity(s, msg.body.request_id as string);
    t.equal(done, 'request.result.session.message');
    t.equal((await s.call('GET', `${base}/session/lookout`)).body.template, 'scout');
    // The agent's output is its session's conversation, read from the agent's own log.
    await eventually(async () => {
      const out = await s.call('GET', `${base}/agent/scout/output`);
      return out.status === 200 && JSON.stringify(out.body.turns).includes('echo: anything?');
    }, 20_000);
    const output = await s.call('GET', `${base}/agent/scout/output`);
    t.equal(output.body.format, 'conversation');
    t.equal((await s.call('GET', `${base}/agent/worker-3/output`)).status, 404, 'no session, no output');

    // Edits: create (201), duplicate (409), bad provider (422), suspend, delete; city.toml follows.
    const add = await s.call('POST', `${base}/agents`, { name: 'helper', provider: 'mock' });
    t.equal(add.status, 201, JSON.stringify(add.body));
    t.match(readFileSync(join(dir, 'city.toml'), 'utf8'), /name = "helper"/);
    t.equal((await s.call('POST', `${base}/agents`, { name: 'helper', provider: 'mock' })).status, 409);
    const bad = await s.call('POST', `${base}/agents`, { name: 'other', provider: 'nope' });
    t.equal(bad.status, 422);
    t.match(JSON.stringify(bad.body.errors), /body\.provider/);
    t.notMatch(
      readFileSync(join(dir, 'city.toml'), 'utf8'),
      /name = "other"/,
      'a refused create writes nothing',
    );
    t.equal((await s.call('GET', `${base}/agent/nobody`)).status, 404);

    t.equal((await s.call('POST', `${base}/agent/worker/suspend`)).status, 200);
    await eventually(async () => (await byName('worker-1'))?.state === 'suspended', 20_000);
    t.match(readFileSync(join(dir, 'city.toml'), 'utf8'), /suspended = true/);
    t.equal((await byName('worker-2'))?.running, false, 'suspending an agent stops its sessions');

    t.equal((await s.call('DELETE', `${base}/agent/helper`)).status, 200);
    t.notMatch(readFileSync(join(dir, 'city.toml'), 'utf8'), /name = "helper"/);
    const changes = await s.call('GET', `${base}/events?type=agent.config_changed&include=internal`);
    t.same(
      (changes.body.items as { payload: { op: string; agent: string } }[])
        .map((e) => [e.payload.op, e.payload.agent])
        .sort(),
      [
        ['created', 'helper'],
        ['deleted', 'helper'],
        ['updated', 'worker'],
      ],
      'each edit is one agent.config_changed event',
    );
  });
}

async function waitForTerminalOnCity(s: TestSupervisor, requestId: string): Promise<string> {
  let type = '';
  await eventually(async () => {
    const items = ((await s.call('GET', `${base}/events?limit=1000`)).body.items ?? []) as {
      type: string;
      payload?: { request_id?: string };
    }[];
    const hit = items.find(
      (e) =>
        e.payload?.request_id === requestId &&
        (e.type === 'request.failed' || e.type.startsWith('request.result.')),
    );
    type = hit?.type ?? '';
    return hit !== undefined;
  }, 30_000);
  return type;
}
