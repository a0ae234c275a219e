import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { AGENT_SERVICE } from '../../actors/agents/agentApi.ts';
import type { SupervisorConfig } from '../../actors/supervisor/supervisorConfig.ts';
import { ConflictError } from '../../actors/runtime/errors.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { LiveCities } from '../../actors/supervisor/liveCities.ts';
import { setAgentOutputPollMs } from '../../http/routes/agentsStream.ts';
import { memoryApp } from '../helpers/app.ts';
import { conversation, MAYOR, RecordingAgents, turn, WORKER } from '../helpers/recordingAgents.ts';
import { GcProcess, isolatedEnv, jsonLines, runGc } from './helpers/gc.ts';

/**
 * `gc agent …` (the built binary) against the real agent routes over a recording AgentApi: what each
 * command asks of the agent service (so what it sent passed the routes' validation and X-GC-Request check)
 * and what it prints, including refusals the service answers on demand.
 */

t.setTimeout(5 * 60_000);

const CITY = 'town';

interface Setup {
  agents: RecordingAgents;
  cities: LiveCities;
  env: NodeJS.ProcessEnv;
  home: string;
  cityDir: string;
  /** Every request the app received, as `METHOD path` with its X-GC-Request header. */
  requests: Array<{ route: string; header: string | undefined; lastEventId?: string | undefined }>;
}

async function setup(t: Test): Promise<Setup> {
  const home = await mkdtemp(join(tmpdir(), 'gc-cli-agent-'));
  t.teardown(() => rm(home, { recursive: true, force: true }));
  const cityDir = join(home, 'town-dir');
  await mkdir(join(cityDir, '.gc', 'x'), { recursive: true });
  await writeFile(join(cityDir, 'city.toml'), '');
  const agents = new RecordingAgents();
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  cities.set({
    name: CITY,
    path: cityDir,
    journal: new MemoryJournal(CITY),
    running: true,
    services: { [AGENT_SERVICE]: agents },
  });
  // memoryApp merges a partial config over the defaults; its parameter type asks for a whole one.
  const { app, deps } = await memoryApp({ cities, config: { heartbeatMs: 20 } as SupervisorConfig });
  setAgentOutputPollMs(deps, 10);
  const requests: Setup['requests'] = [];
  app.addHook('onRequest', async (request) => {
    const header = request.headers['x-gc-request'];
    const resume = request.headers['last-event-id'];
    requests.push({
      route: `${request.method} ${request.url}`,
      header: typeof header === 'string' ? header : undefined,
      ...(typeof resume === 'string' ? { lastEventId: resume } : {}),
    });
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  return {
    agents,
    cities,
    env: isolatedEnv(home, { GC_API: url, GC_CITY: CITY }),
    home,
    cityDir,
    requests,
  };
}

const failure = (r: { code: number | null; stdout: string; stderr: string }): unknown[] => [
  r.code,
  r.stdout,
  r.stderr,
];

t.test('list prints a table, or JSON Lines with --json; filters go in the query', async (t) => {
  const { agents, env } = await setup(t);
  const table = await runGc(['agent', 'list'], { env });
  t.equal(table.code, 0, table.stderr);
  t.equal(
    table.stdout,
    [
      'NAME         STATE      RUNNING  PROVIDER  POOL  SESSION',
      'mayor        idle       yes      mock      -     alpha-mayor',
      'rig1/worker  suspended  no       mock      -     -',
      '',
    ].join('\n'),
  );
  const json = await runGc(['agent', 'list', '--json', '--pool', 'worker', '--rig', 'rig1', '--running'], {
    env,
  });
  t.equal(json.code, 0, json.stderr);
  t.same(jsonLines(json.stdout), [MAYOR, WORKER]);
  await runGc(['agent', 'list', '--json', '--no-running', '--peek'], { env });
  t.same(
    agents.calls.map((c) => [c.method, ...c.args]),
    [
      ['list', {}],
      ['list', { pool: 'worker', rig: 'rig1', running: true }],
      ['list', { running: false, peek: true }],
    ],
  );
  agents.views.clear();
  const none = await runGc(['agent', 'list', '--json'], { env });
  t.same([none.code, none.stdout], [0, ''], 'no agents: nothing on stdout');
});

t.test(
  'the city comes from --city, GC_CITY or the city directory around cwd; none is an error',
  async (t) => {
    const { env, home, cityDir } = await setup(t);
    const noCity = { ...env };
    delete noCity.GC_CITY;
    const fromCwd = await runGc(['agent', 'show', 'mayor'], { env: noCity, cwd: join(cityDir, '.gc', 'x') });
    t.equal(fromCwd.code, 0, fromCwd.stderr);
    t.same(jsonLines(fromCwd.stdout), [MAYOR]);
    const fromFlag = await runGc(['agent', 'list', '--city', CITY], { env: noCity, cwd: home });
    t.equal(fromFlag.code, 0, fromFlag.stderr);
    const nowhere = await runGc(['agent', 'list'], { env: noCity, cwd: home });
    t.same(failure(nowhere), [
      1,
      '',
      'gc agent list: no city in scope; pass --city <name>, set GC_CITY, or run inside a city directory\n',
    ]);
    const elsewhere = await runGc(['agent', 'list', '--city', 'ghost'], { env });
    t.same(failure(elsewhere), [1, '', 'gc agent list: not_found: city not found or not running: ghost\n']);
  },
);

t.test('show prints one agent by base or rig/base; --peek asks for a peek; unknown is 404', async (t) => {
  const { agents, env, requests } = await setup(t);
  const city = await runGc(['agent', 'show', 'mayor'], { env });
  t.equal(city.stdout, JSON.stringify(MAYOR) + '\n', city.stderr);
  const rig = await runGc(['agent', 'show', 'rig1/worker', '--peek'], { env });
  t.match(jsonLines(rig.stdout), [{ name: 'rig1/worker', last_output: 'echo: hi' }]);
  t.equal(requests.at(-1)?.route, `GET /v0/city/${CITY}/agent/rig1/worker?peek=true`, 'the qualified form');
  const unknown = await runGc(['agent', 'show', 'a b'], { env });
  t.same(failure(unknown), [1, '', 'gc agent show: not_found: agent not found: a b\n']);
  const bad = await runGc(['agent', 'show', 'a/b/c'], { env });
  t.same(failure(bad), [
    1,
    '',
    'gc agent show: invalid agent name "a/b/c": expected <base> or <rig>/<base>\n',
  ]);
  t.same(
    agents.calls.map((c) => c.args),
    [
      ['mayor', {}],
      ['rig1/worker', { peek: true }],
      ['a b', {}],
    ],
  );
});

t.test('add sends name, provider, dir and scope with X-GC-Request and prints the answer', async (t) => {
  const { agents, env, requests } = await setup(t);
  const city = await runGc(['agent', 'add', 'deacon', '--provider', 'claude'], { env });
  t.equal(city.code, 0, city.stderr);
  t.same(jsonLines(city.stdout), [{ status: 'ok', agent: 'deacon' }]);
  t.same(requests.at(-1), { route: `POST /v0/city/${CITY}/agents`, header: 'gc' });
  const rig = await runGc(['agent', 'add', 'rig1/worker', '--provider', 'mock', '--scope', 'rig'], { env });
  t.same(jsonLines(rig.stdout), [{ status: 'ok', agent: 'rig1/worker' }]);
  await runGc(['agent', 'add', 'w2', '--provider', 'mock', '--dir', 'rig2'], { env });
  t.same(
    agents.calls.map((c) => c.args),
    [
      [{ name: 'deacon', provider: 'claude' }, 'api'],
      [{ name: 'worker', provider: 'mock', dir: 'rig1', scope: 'rig' }, 'api'],
      [{ name: 'w2', provider: 'mock', dir: 'rig2' }, 'api'],
    ],
  );
  const contradiction = await runGc(['agent', 'add', 'rig1/w', '--provider', 'mock', '--dir', 'rig2'], {
    env,
  });
  t.same(failure(contradiction), [1, '', 'gc agent add: --dir rig2 contradicts the rig of "rig1/w"\n']);
  const noProvider = await runGc(['agent', 'add', 'x'], { env });
  t.equal(noProvider.code, 1);
  t.match(noProvider.stderr, /^gc agent add: Missing required flag provider/);
  agents.fail = new ConflictError('agent "deacon" already exists');
  const twice = await runGc(['agent', 'add', 'deacon', '--provider', 'claude'], { env });
  t.same(failure(twice), [1, '', 'gc agent add: conflict: agent "deacon" already exists\n']);
  const empty = await runGc(['agent', 'add', '', '--provider', 'claude'], { env });
  t.equal(empty.code, 1, 'an empty name never reaches the service');
  t.equal(agents.calls.length, 4);
});

t.test('set patches only the fields given; remove, suspend and resume print {"status":"ok"}', async (t) => {
  const { agents, env, requests } = await setup(t);
  const set = await runGc(['agent', 'set', 'rig1/worker', '--provider', 'codex', '--no-suspended'], { env });
  t.same([set.code, set.stdout], [0, '{"status":"ok"}\n'], set.stderr);
  await runGc(['agent', 'set', 'mayor', '--suspended', '--scope', 'city'], { env });
  const nothing = await runGc(['agent', 'set', 'mayor'], { env });
  t.same(failure(nothing), [
    1,
    '',
    'gc agent set: nothing to change: pass --provider, --scope or --[no-]suspended\n',
  ]);
  for (const verb of ['remove', 'suspend', 'resume']) {
    const r = await runGc(['agent', verb, verb === 'remove' ? 'mayor' : 'rig1/worker'], { env });
    t.same([r.code, r.stdout, r.stderr], [0, '{"status":"ok"}\n', ''], verb);
  }
  const gone = await runGc(['agent', 'suspend', 'ghost'], { env });
  t.same(failure(gone), [1, '', 'gc agent suspend: not_found: agent not found: ghost\n']);
  t.same(
    agents.calls.map((c) => [c.method, ...c.args]),
    [
      ['update', 'rig1/worker', { provider: 'codex', suspended: false }, 'api'],
      ['update', 'mayor', { scope: 'city', suspended: true }, 'api'],
      ['remove', 'mayor', 'api'],
      ['act', 'rig1/worker', 'suspend', 'api'],
      ['act', 'rig1/worker', 'resume', 'api'],
      ['act', 'ghost', 'suspend', 'api'],
    ],
  );
  t.same(
    requests.filter((r) => !r.route.startsWith('GET')).map((r) => r.header),
    Array(6).fill('gc'),
    'every mutation carries X-GC-Request',
  );
  t.same(
    requests.filter((r) => !r.route.startsWith('GET')).map((r) => r.route.split(' ')[0]),
    ['PATCH', 'PATCH', 'DELETE', 'POST', 'POST', 'POST'],
  );
});

t.test('output prints one JSON line per turn; --tail and --before go in the query', async (t) => {
  const { agents, env } = await setup(t);
  agents.outputs.set('mayor', conversation('mayor', [turn(1), turn(2)], 5));
  const r = await runGc(['agent', 'output', 'mayor', '--tail', '0', '--before', 'u-9'], { env });
  t.equal(r.code, 0, r.stderr);
  t.same(jsonLines(r.stdout), [turn(1), turn(2)]);
  t.same(agents.calls.at(-1)?.args, ['mayor', { tail: 0, before: 'u-9' }]);
  const none = await runGc(['agent', 'output', 'rig1/worker'], { env });
  t.same(failure(none), [1, '', 'gc agent output: not_found: agent rig1/worker has no output\n']);
  const both = await runGc(['agent', 'output', 'mayor', '--follow', '--tail', '1'], { env });
  t.equal(both.code, 1);
  t.same(failure(both), [
    1,
    '',
    'gc agent output: --follow=true cannot also be provided when using --tail; see "gc agent output --help"\n',
  ]);
});

t.test(
  'output --follow resumes after the city replaces its agent service, with Last-Event-ID, nothing twice',
  async (t) => {
    const { agents, cities, env, cityDir, requests } = await setup(t);
    agents.outputs.set('mayor', conversation('mayor', [turn(1), turn(2)]));
    const gc = new GcProcess(['agent', 'output', 'mayor', '--follow'], { env });
    t.teardown(() => gc.stop());
    await gc.waitForLines(2);
    // A city restart: the stream of the old service ends; the new one has a turn the old never sent.
    const restarted = new RecordingAgents();
    restarted.outputs.set('mayor', conversation('mayor', [turn(1), turn(2), turn(3)]));
    cities.set({
      name: CITY,
      path: cityDir,
      journal: new MemoryJournal(CITY),
      running: true,
      services: { [AGENT_SERVICE]: restarted },
    });
    await gc.waitForStderr(/stream ended, reconnecting in 1s/);
    await gc.waitForLines(3);
    t.same(jsonLines(gc.stdout()), [turn(1), turn(2), turn(3)], 'each turn once');
    const streams = requests.filter((r) => r.route.startsWith('GET /v0/city/town/agent/mayor/output/stream'));
    t.same(
      streams.map((r) => r.lastEventId),
      [undefined, '2'],
      'one reconnect, resuming after the last turn printed',
    );
    const end = await gc.stop();
    t.same([end.code, end.signal], [0, null], 'an interrupt ends the follow quietly');
  },
);

t.test('output --follow prints the latest turns, then each new turn once, never a heartbeat', async (t) => {
  const { agents, env } = await setup(t);
  agents.outputs.set('rig1/worker', conversation('rig1/worker', [turn(1), turn(2)]));
  const gc = new GcProcess(['agent', 'output', 'rig1/worker', '--follow'], { env });
  t.teardown(() => gc.stop());
  await gc.waitForLines(2);
  agents.outputs.set('rig1/worker', conversation('rig1/worker', [turn(1), turn(2), turn(3)]));
  await gc.waitForLines(3);
  agents.outputs.set('rig1/worker', conversation('rig1/worker', [turn(1), turn(2), turn(3), turn(4)]));
  await gc.waitForLines(4);
  t.same(
    jsonLines(gc.stdout()),
    [turn(1), turn(2), turn(3), turn(4)],
    'heartbeats (every 20 ms) are swallowed',
  );
  // The agent goes away: the server ends the stream and gc ends with it.
  agents.outputs.delete('rig1/worker');
  const done = await gc.done;
  t.same([done.code, done.stderr], [0, '']);

  const missing = await runGc(['agent', 'output', 'ghost', '--follow'], { env });
  t.same(
    failure(missing),
    [1, '', 'gc agent output: not_found: agent not found: ghost\n'],
    '404 before the stream',
  );
});
