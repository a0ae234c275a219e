/**
 * The agent layer's pure rules: templates from config, the awake set (pool minimums and bounds, scale
 * demand, shrinking without touching busy sessions, always-named sessions, suspended agents), start waves,
 * dependency cycles, and upstream's agent state rule.
 */
import t from 'tap';
import {
  agentState,
  awakeSet,
  waitingOnDependencies,
  type AgentSessionFacts,
} from '../../machines/agents/awake.ts';
import {
  dependencyCycles,
  desiredCount,
  instanceName,
  slotOf,
  templateOf,
} from '../../machines/agents/templates.ts';

const fact = (id: string, template: string, instance: string, extra: Partial<AgentSessionFacts> = {}) => ({
  id,
  template,
  instance,
  state: 'active',
  running: true,
  busy: false,
  ...extra,
});

t.test('templates: singleton, bounded and unbounded pools', async (t) => {
  t.match(templateOf({ name: 'mayor' }), { qualified: 'mayor', pool: false, min: 0, max: 1 });
  t.match(templateOf({ name: 'w', dir: 'rig', min_active_sessions: 2 }), {
    qualified: 'rig/w',
    pool: true,
    max: 2,
  });
  t.match(templateOf({ name: 'w', max_active_sessions: -1 }), { pool: true, max: undefined });
  t.match(templateOf({ name: 'w', max_active_sessions: 0 }), { pool: false, max: 0 });
  const pool = templateOf({ name: 'w', min_active_sessions: 1, max_active_sessions: 4 });
  t.equal(desiredCount(pool, undefined), 1, 'no demand: the minimum');
  t.equal(desiredCount(pool, 3), 3);
  t.equal(desiredCount(pool, 9), 4, 'clamped to the maximum');
  t.equal(
    desiredCount(templateOf({ name: 'w', suspended: true, min_active_sessions: 2 }), 5),
    0,
    'suspended: none',
  );
});

t.test('the awake set fills a pool to its minimum, slot by slot, skipping taken slots', async (t) => {
  const templates = [templateOf({ name: 'w', min_active_sessions: 3, max_active_sessions: 5 })];
  const actions = awakeSet({ templates, named: [], sessions: [fact('s1', 'w', 'w-2')], demand: new Map() });
  t.same(actions, [
    { kind: 'create', template: 'w', instance: 'w-1', origin: 'ephemeral' },
    { kind: 'create', template: 'w', instance: 'w-3', origin: 'ephemeral' },
  ]);
});

t.test(
  'scale demand grows a pool within its bounds, and shrinks it from the top, never a busy one',
  async (t) => {
    const templates = [templateOf({ name: 'w', min_active_sessions: 1, max_active_sessions: 4 })];
    const grow = awakeSet({
      templates,
      named: [],
      sessions: [fact('s1', 'w', 'w-1')],
      demand: new Map([['w', 9]]),
    });
    t.same(
      grow.map((a) => a.kind === 'create' && a.instance),
      ['w-2', 'w-3', 'w-4'],
    );
    const sessions = [fact('s1', 'w', 'w-1'), fact('s2', 'w', 'w-2'), fact('s3', 'w', 'w-3', { busy: true })];
    const shrink = awakeSet({ templates, named: [], sessions, demand: new Map([['w', 1]]) });
    t.same(
      shrink,
      [
        { kind: 'close', id: 's2', reason: 'pool-shrink' },
        { kind: 'close', id: 's1', reason: 'pool-shrink' },
      ],
      'the busy w-3 stays; the two idle ones go',
    );
  },
);

t.test(
  'a singleton with no minimum is not started by the awake set; a named always session is',
  async (t) => {
    const templates = [templateOf({ name: 'scout' }), templateOf({ name: 'mayor' })];
    const named = [
      { name: 'lookout', template: 'scout', mode: 'on_demand' as const },
      { name: 'the-mayor', template: 'mayor', mode: 'always' as const },
    ];
    t.same(awakeSet({ templates, named, sessions: [], demand: new Map() }), [
      { kind: 'create', template: 'mayor', instance: 'the-mayor', origin: 'named' },
    ]);
    const present = [fact('s1', 'mayor', 'the-mayor')];
    t.same(awakeSet({ templates, named, sessions: present, demand: new Map() }), [], 'kept, not doubled');
    const suspended = [templateOf({ name: 'scout' }), templateOf({ name: 'mayor', suspended: true })];
    t.same(
      awakeSet({ templates: suspended, named, sessions: [], demand: new Map() }),
      [],
      'not for a suspended agent',
    );
  },
);

t.test('start waves hold a dependent until a dependency runs; cycles are found', async (t) => {
  const templates = [
    templateOf({ name: 'db' }),
    templateOf({ name: 'api', depends_on: ['db'] }),
    templateOf({ name: 'ui', depends_on: ['api'] }),
  ];
  const sessions = [
    fact('d', 'db', 'db', { running: false }),
    fact('a', 'api', 'api', { running: false }),
    fact('u', 'ui', 'ui', { running: false }),
  ];
  t.same([...waitingOnDependencies(templates, sessions)].sort(), ['a', 'u'], 'only db may start');
  sessions[0]!.running = true;
  t.same([...waitingOnDependencies(templates, sessions)], ['u'], 'then api');
  sessions[1]!.running = true;
  t.same([...waitingOnDependencies(templates, sessions)], [], 'then ui');
  t.same(
    dependencyCycles([
      templateOf({ name: 'a', depends_on: ['b'] }),
      templateOf({ name: 'b', depends_on: ['a'] }),
      templateOf({ name: 'c', depends_on: ['a'] }),
    ]),
    ['a', 'b'],
  );
});

t.test("upstream's agent state rule", async (t) => {
  const now = 1_000_000_000;
  const base = {
    suspended: false,
    quarantined: false,
    running: true,
    activeBead: false,
    lastActivity: now,
    now,
  };
  t.equal(agentState({ ...base, suspended: true }), 'suspended');
  t.equal(agentState({ ...base, quarantined: true }), 'quarantined');
  t.equal(agentState({ ...base, running: false }), 'stopped');
  t.equal(agentState(base), 'idle');
  t.equal(agentState({ ...base, activeBead: true }), 'working');
  t.equal(agentState({ ...base, activeBead: true, lastActivity: now - 11 * 60_000 }), 'waiting');
});

t.test('a session started by hand is never pool surplus, and its name is never a pool slot', async (t) => {
  const templates = [templateOf({ name: 'w', max_active_sessions: 3 })];
  const manual = fact('m', 'w', 'w-1', { manual: true });
  t.same(
    awakeSet({ templates, named: [], sessions: [manual], demand: new Map([['w', 0]]) }),
    [],
    'no demand: the manual session stays',
  );
  t.same(
    awakeSet({ templates, named: [], sessions: [manual], demand: new Map([['w', 1]]) }),
    [{ kind: 'create', template: 'w', instance: 'w-2', origin: 'ephemeral' }],
    'it does not fill the pool, and the pool skips its name',
  );
  const pool = [manual, fact('p', 'w', 'w-2')];
  t.same(
    awakeSet({ templates, named: [], sessions: pool, demand: new Map([['w', 0]]) }),
    [{ kind: 'close', id: 'p', reason: 'pool-shrink' }],
    'a shrink closes pool instances only',
  );
});

t.test(
  'namepool: pool slots take its names in order, numbered past its end; shrink from the last',
  async (t) => {
    const pool = templateOf({
      name: 'gastown.polecat',
      dir: 'app',
      max_active_sessions: 3,
      namepoolNames: ['furiosa', 'nux'],
    });
    t.same(
      [1, 2, 3].map((n) => instanceName(pool, n)),
      ['app/gastown.furiosa', 'app/gastown.nux', 'app/gastown.polecat-3'],
    );
    t.same(
      ['app/gastown.nux', 'app/gastown.polecat-3', 'app/other'].map((i) => slotOf(pool, i)),
      [2, 3, 0],
    );
    t.equal(
      instanceName(templateOf({ name: 'solo', namepoolNames: ['x'] }), 1),
      'solo',
      'a singleton keeps its name',
    );
    const created = awakeSet({
      templates: [pool],
      named: [],
      sessions: [fact('s1', 'app/gastown.polecat', 'app/gastown.furiosa')],
      demand: new Map([['app/gastown.polecat', 2]]),
    });
    t.same(created, [
      { kind: 'create', template: 'app/gastown.polecat', instance: 'app/gastown.nux', origin: 'ephemeral' },
    ]);
    const shrunk = awakeSet({
      templates: [templateOf({ name: 'p', max_active_sessions: 2, namepoolNames: ['zed', 'amy'] })],
      named: [],
      sessions: [fact('s1', 'p', 'zed'), fact('s2', 'p', 'amy')],
      demand: new Map([['p', 1]]),
    });
    t.same(
      shrunk,
      [{ kind: 'close', id: 's2', reason: 'pool-shrink' }],
      'amy (slot 2) goes, not zed (slot 1)',
    );
  },
);
