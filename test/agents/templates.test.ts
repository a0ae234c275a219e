// The agent template rules of machines/agents/templates.ts, checked against upstream's documented pool
// semantics (reference/packs-and-agents.md) with hand-worked cases: the mutation run found them covered only
// through awake.test.ts, where most of their branches make no difference.
import t from 'tap';
import {
  dependencyCycles,
  desiredCount,
  instanceName,
  slotOf,
  templateOf,
} from '../../machines/agents/templates.ts';

t.test('templateOf: the pool bounds upstream gives an agent', async (t) => {
  const bounds = (cfg: { min_active_sessions?: number; max_active_sessions?: number }) => {
    const tpl = templateOf({ name: 'w', ...cfg });
    return [tpl.min, tpl.max, tpl.pool];
  };
  t.same(bounds({}), [0, 1, false], 'no bounds: a singleton');
  t.same(bounds({ min_active_sessions: 1 }), [1, 1, false], 'min 1 alone: still a singleton');
  t.same(bounds({ min_active_sessions: 3 }), [3, 3, true], 'min above 1 alone: max follows it');
  t.same(bounds({ max_active_sessions: 4 }), [0, 4, true]);
  t.same(bounds({ max_active_sessions: -1 }), [0, undefined, true], 'a negative max: unbounded');
  t.same(bounds({ min_active_sessions: -2, max_active_sessions: 1 }), [0, 1, false], 'a negative min is 0');
});

t.test('templateOf copies each optional key only when it is set', async (t) => {
  const bare = templateOf({ name: 'w' });
  t.same(Object.keys(bare).sort(), ['base', 'dependsOn', 'max', 'min', 'pool', 'qualified', 'suspended']);
  const full = templateOf({
    name: 'gastown.polecat',
    dir: 'app',
    provider: 'claude',
    start_command: 'run',
    scale_check: 'echo 2',
    work_query: 'bd ready',
    description: 'works',
    default_sling_formula: 'mol-polecat',
    namepoolNames: ['furiosa'],
    depends_on: ['app/mayor'],
    suspended: true,
  });
  t.same(
    [full.qualified, full.base, full.dir, full.provider, full.startCommand, full.scaleCheck, full.workQuery],
    ['app/gastown.polecat', 'gastown.polecat', 'app', 'claude', 'run', 'echo 2', 'bd ready'],
  );
  t.same(
    [full.description, full.defaultSlingFormula, full.names, full.dependsOn, full.suspended],
    ['works', 'mol-polecat', ['furiosa'], ['app/mayor'], true],
  );
  t.notOk('names' in templateOf({ name: 'w', namepoolNames: [] }), 'an empty namepool is none');
  t.equal(templateOf({ name: 'w', suspended: false }).suspended, false);
});

t.test('instance names and the slots they hold', async (t) => {
  const pool = templateOf({
    name: 'gastown.polecat',
    dir: 'app',
    max_active_sessions: 3,
    namepoolNames: ['furiosa'],
  });
  t.equal(instanceName(pool, 1), 'app/gastown.furiosa', "the namepool's name keeps rig and binding");
  t.equal(instanceName(pool, 2), 'app/gastown.polecat-2', 'past the namepool: <name>-<slot>');
  t.equal(instanceName(templateOf({ name: 'mayor' }), 1), 'mayor', "a singleton's own name");
  t.equal(slotOf(pool, 'app/gastown.furiosa'), 1);
  t.equal(slotOf(pool, 'app/gastown.polecat-2'), 2);
  t.equal(slotOf(pool, 'app/gastown.polecat-0'), 0, 'slot 0 is no slot');
  t.equal(slotOf(pool, 'app/gastown.polecat-1.5'), 0, 'not a whole number');
  t.equal(slotOf(pool, 'app/gastown.polecat-x'), 0);
  t.equal(slotOf(pool, 'other-2'), 0, "another template's name");
  t.equal(slotOf(templateOf({ name: 'w', max_active_sessions: 2 }), 'w-2'), 2, 'no namepool');
});

t.test('desiredCount: demand within the bounds, none while suspended', async (t) => {
  const tpl = templateOf({ name: 'w', min_active_sessions: 1, max_active_sessions: 3 });
  t.same(
    [undefined, 0, 2, 9].map((d) => desiredCount(tpl, d)),
    [1, 1, 2, 3],
  );
  t.equal(desiredCount(templateOf({ name: 'w', max_active_sessions: -1 }), 50), 50, 'unbounded');
  t.equal(desiredCount(templateOf({ name: 'w', min_active_sessions: 2, suspended: true }), 5), 0);
});

t.test('dependencyCycles names exactly the templates on a cycle, sorted', async (t) => {
  const tpl = (name: string, ...depends_on: string[]) => templateOf({ name, depends_on });
  // x leads into the cycle b → a → b but is not on it; c waits on a template that does not exist.
  const cycles = dependencyCycles([
    tpl('x', 'b'),
    tpl('b', 'a'),
    tpl('a', 'b'),
    tpl('c', 'missing'),
    tpl('s', 's'),
  ]);
  t.same(cycles, ['a', 'b', 's']);
  t.same(dependencyCycles([tpl('a', 'b'), tpl('b'), tpl('c', 'a', 'b')]), [], 'a diamond is no cycle');
});
