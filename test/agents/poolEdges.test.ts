/**
 * The pool rules at their edges (machines/agents/awake.ts, templates.ts, agent.machine.ts): unbounded
 * pools, the slot bound when manual sessions hold names, shrinking only above the wanted count, the tie
 * order of sessions that hold no slot, named sessions, slot numbers, the agent state rule's ten minutes,
 * dependency cycles on a large lattice, and the agent machine's first context.
 */
import t from 'tap';
import { createActor } from 'xstate';
import { agentMachine, isAgentState } from '../../machines/agents/agent.machine.ts';
import { agentState, awakeSet, type AgentSessionFacts } from '../../machines/agents/awake.ts';
import { dependencyCycles, slotOf, templateOf } from '../../machines/agents/templates.ts';

const session = (id: string, template: string, instance: string, extra: Partial<AgentSessionFacts> = {}) => ({
  id,
  template,
  instance,
  state: 'active',
  running: true,
  busy: false,
  ...extra,
});

t.test('an unbounded pool grows to its demand', async (t) => {
  const pool = templateOf({ name: 'w', max_active_sessions: -1 });
  const actions = awakeSet({ templates: [pool], named: [], sessions: [], demand: new Map([['w', 3]]) });
  t.same(
    actions.map((a) => (a.kind === 'create' ? a.instance : a.kind)),
    ['w-1', 'w-2', 'w-3'],
  );
});

t.test('slots stop at the pool bound even when a manual session holds one of the names', async (t) => {
  const pool = templateOf({ name: 'w', min_active_sessions: 2, max_active_sessions: 2 });
  const manual = session('s-m', 'w', 'w-1', { manual: true });
  const actions = awakeSet({ templates: [pool], named: [], sessions: [manual], demand: new Map() });
  t.same(actions, [{ kind: 'create', template: 'w', instance: 'w-2', origin: 'ephemeral' }], 'not w-3');
});

t.test('a pool below its wanted count only grows: nothing is closed', async (t) => {
  const pool = templateOf({ name: 'w', min_active_sessions: 3, max_active_sessions: 5 });
  const sessions = [session('s1', 'w', 'w-1'), session('s2', 'w', 'w-2')];
  const actions = awakeSet({ templates: [pool], named: [], sessions, demand: new Map() });
  t.same(actions, [{ kind: 'create', template: 'w', instance: 'w-3', origin: 'ephemeral' }]);
});

t.test('surplus sessions that hold no slot go in natural name order, highest first', async (t) => {
  const pool = templateOf({ name: 'w', max_active_sessions: 5 });
  const sessions = [
    session('s-a2', 'w', 'w-x2'),
    session('s-a10', 'w', 'w-x10'),
    session('s-a9', 'w', 'w-x9'),
  ];
  const actions = awakeSet({ templates: [pool], named: [], sessions, demand: new Map([['w', 1]]) });
  t.same(
    actions.map((a) => (a.kind === 'close' ? a.id : a.kind)),
    ['s-a10', 's-a9'],
    'w-x10 sorts above w-x9 (numeric), which a plain string order would not give',
  );
});

t.test('an always-named session is created when it alone is missing', async (t) => {
  const mayor = templateOf({ name: 'mayor' });
  const pool = templateOf({ name: 'w', max_active_sessions: 3 });
  const sessions = [session('s-w1', 'w', 'w-1')];
  const actions = awakeSet({
    templates: [mayor, pool],
    named: [{ name: 'mayor', template: 'mayor', mode: 'always' }],
    sessions,
    demand: new Map([['w', 1]]),
  });
  t.same(actions, [{ kind: 'create', template: 'mayor', instance: 'mayor', origin: 'named' }]);
});

t.test('slot numbers: the -<n> suffix, and 0 for anything else', async (t) => {
  const pool = templateOf({ name: 'w', max_active_sessions: 4 });
  t.equal(slotOf(pool, 'w-3'), 3);
  t.equal(slotOf(pool, 'w-12'), 12);
  t.equal(slotOf(pool, 'w--1'), 0, 'a negative number is no slot');
  t.equal(slotOf(pool, 'w-0'), 0);
  t.equal(slotOf(pool, 'w-1.5'), 0);
  t.equal(slotOf(pool, 'other-2'), 0);
});

t.test('the agent state rule: working within ten minutes of the last activity', async (t) => {
  const now = 1_800_000_000_000;
  const base = { suspended: false, quarantined: false, running: true, activeBead: true, now };
  t.equal(agentState({ ...base, lastActivity: now - 600_000 }), 'working', 'exactly ten minutes ago');
  t.equal(agentState({ ...base, lastActivity: now - 600_001 }), 'waiting');
  t.equal(agentState({ ...base, lastActivity: now - 300_000 }), 'working', 'five minutes ago');
  t.equal(agentState({ ...base, lastActivity: undefined }), 'waiting', 'never active');
});

t.test('dependency cycles on a lattice of diamonds are found by walking each template once', async (t) => {
  // 40 layers of two templates, each depending on both of the next layer: 2^40 paths, 80 templates.
  const templates = [];
  for (let layer = 0; layer < 40; layer++)
    for (const side of ['a', 'b'])
      templates.push(
        templateOf({
          name: `${side}${layer}`,
          depends_on: layer < 39 ? [`a${layer + 1}`, `b${layer + 1}`] : [],
        }),
      );
  t.same(dependencyCycles(templates), [], 'no cycle, and it returns (a re-walk would not, in any time)');
  templates.push(templateOf({ name: 'loop', depends_on: ['a0', 'loop'] }));
  t.same(dependencyCycles(templates), ['loop'], 'a self-dependency beside it');
});

t.test(
  'the agent machine: its states are upstream’s, and its first context comes from its input',
  async (t) => {
    t.equal(isAgentState('idle'), true);
    t.equal(isAgentState('busy'), false);
    t.equal(isAgentState(undefined), false);
    t.equal(agentMachine.id, 'agent', 'the id inspection and persisted snapshots name it by');
    const facts = {
      running: false,
      pool: 'w',
      rig: 'app',
      provider: 'mock',
      active_bead: undefined,
      session: undefined,
    };
    const actor = createActor(agentMachine, { input: { city: 'yard', name: 'w-1', facts } });
    actor.start();
    t.same(actor.getSnapshot().context, {
      city: 'yard',
      name: 'w-1',
      ...facts,
    });
    t.equal(actor.getSnapshot().value, 'stopped', 'a new agent starts stopped');
    actor.stop();
  },
);
