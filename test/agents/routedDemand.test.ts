/**
 * Upstream's default pool demand (machines/agents/routedDemand.ts): per `gc.routed_to` target, the ready
 * unassigned beads, the in-progress unassigned ones and the open molecules. Built on a bead city folded
 * by the production decider; the expected counts are worked out by hand from the beads each case makes.
 */
import t from 'tap';
import { ROUTED_TO, routedDemand } from '../../machines/agents/routedDemand.ts';
import { beadCity, CITY_NOW } from '../helpers/beadCity.ts';

const NOW = Date.parse(CITY_NOW);
const routed = (target: string) => ({ metadata: { [ROUTED_TO]: target } });

t.test('the routing key is upstream’s gc.routed_to', async (t) => {
  t.equal(ROUTED_TO, 'gc.routed_to');
});

t.test('ready unassigned work counts for its target; anything else does not', async (t) => {
  const city = beadCity();
  city.create({ title: 'ready', ...routed('rig/worker') });
  city.create({ title: 'ready too', ...routed('rig/worker') });
  city.create({ title: 'for the mayor', ...routed('mayor') });
  city.create({ title: 'assigned', assignee: 'rig/worker-1', ...routed('rig/worker') });
  city.create({ title: 'not routed' });
  city.create({ title: 'routed to nobody', ...routed('') });
  const closed = city.create({ title: 'closed', ...routed('rig/worker') });
  city.close(closed);
  t.same(Object.fromEntries(routedDemand(city.model, NOW)), { 'rig/worker': 2, mayor: 1 });
});

t.test('a blocked or deferred open bead is not ready, so it is no demand yet', async (t) => {
  const city = beadCity();
  const blocker = city.create({ title: 'blocker' });
  const blocked = city.create({ title: 'blocked', ...routed('w') });
  city.depend(blocked, blocker);
  city.create({ title: 'deferred', defer_until: '2031-01-01T00:00:00Z', ...routed('w') });
  city.create({ title: 'deferred until the past', defer_until: '2029-01-01T00:00:00Z', ...routed('w') });
  t.same(Object.fromEntries(routedDemand(city.model, NOW)), { w: 1 }, 'only the one deferred to the past');
  city.close(blocker);
  t.same(Object.fromEntries(routedDemand(city.model, NOW)), { w: 2 }, 'its blocker closed, it is ready');
});

t.test('in-progress work counts only while no one holds it', async (t) => {
  const city = beadCity();
  for (const worker of ['w-1', 'w-2']) {
    const held = city.create({ title: `held by ${worker}`, ...routed('w') });
    city.update(held, { status: 'in_progress', assignee: worker });
  }
  const loose = city.create({ title: 'loose', ...routed('w') });
  city.update(loose, { status: 'in_progress' });
  t.same(Object.fromEntries(routedDemand(city.model, NOW)), { w: 1 }, 'the loose one, not the two held');
});

t.test(
  'an open molecule is demand even when assigned or blocked (a workflow waiting for its worker)',
  async (t) => {
    const city = beadCity();
    const blocker = city.create({ title: 'blocker' });
    const molecule = city.create({ title: 'wf', type: 'molecule', assignee: 'w-1', ...routed('w') });
    city.depend(molecule, blocker);
    city.create({ title: 'a gate', type: 'gate', ...routed('w') });
    t.same(
      Object.fromEntries(routedDemand(city.model, NOW)),
      { w: 1 },
      'the molecule; a gate is bookkeeping',
    );
  },
);

t.test('an empty city has no demand', async (t) => {
  t.equal(routedDemand(beadCity().model, NOW).size, 0);
});
