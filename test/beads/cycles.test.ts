import t from 'tap';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import {
  createModel,
  decide,
  evolve,
  type BeadCommand,
  type BeadModel,
  type Outcome,
} from '../../machines/beads/index.ts';
import { orderingCycle } from './orderingOracle.ts';

/**
 * The dependency decider against an oracle of its own: random edges between a few beads are added through
 * `decide` and folded, and each refusal or acceptance is checked against a graph search written here from
 * the contract (ordering kinds: blocks, waits-for, conditional-blocks, parent-child), never against the
 * production cycle check.
 */
const NOW = '2030-05-01T12:00:00.000Z';
const ctx = { actor: 'tester', now: NOW };

function cityOf(beads: number) {
  const model = createModel('cy');
  const apply = (outcome: Outcome<unknown>): void => {
    if (!outcome.ok) return;
    for (const draft of [outcome.decision.event, ...outcome.decision.notices]) {
      if (!draft) continue;
      const event: JournalEvent = { ...draft, seq: model.seq + 1, ts: draft.ts ?? NOW };
      evolve(model, event, 'cycles');
    }
  };
  for (let i = 1; i <= beads; i++)
    apply(decide(model, { type: 'CreateBead', input: { title: `b${i}` } }, ctx));
  const run = (command: BeadCommand) => {
    const outcome = decide(model, command, ctx);
    apply(outcome);
    return outcome;
  };
  const edge = (id: string, dependsOn: string, depType: string) =>
    run({ type: 'AddDependency', id, dependsOn, depType });
  return { model, run, edge };
}

const edgesOf = (model: BeadModel) =>
  [...model.beads.values()].flatMap(({ bead }) =>
    (bead.dependencies ?? []).map((d) => ({ from: bead.id, to: d.depends_on_id, type: d.type })),
  );

t.test(
  'a cycle closed through a parent-child edge is refused (the cycle walk follows ordering, not only blocking, edges)',
  async (t) => {
    const { edge } = cityOf(3);
    t.ok(edge('cy-1', 'cy-2', 'parent-child').ok, 'cy-1 -> cy-2 (parent-child)');
    const back = edge('cy-2', 'cy-1', 'blocks');
    t.same(
      back.ok ? 'accepted' : back.rejection,
      { kind: 'conflict', message: 'dependency cy-2 -> cy-1 (blocks) would create a cycle' },
      'cy-2 -> cy-1 (blocks) closes a cycle through the parent-child edge',
    );
    t.ok(edge('cy-2', 'cy-3', 'blocks').ok, 'cy-2 -> cy-3 (blocks)');
    const far = edge('cy-3', 'cy-1', 'waits-for');
    t.notOk(
      far.ok,
      'cy-3 -> cy-1 (waits-for) closes cy-1 -> cy-2 -> cy-3 -> cy-1, whose first edge is parent-child',
    );
    t.ok(edge('cy-3', 'cy-1', 'relates-to').ok, 'a linking kind may loop');
  },
);

t.test('a cycle of linking kinds only is accepted, and they carry no cycle for ordering edges', async (t) => {
  const { edge } = cityOf(2);
  t.ok(edge('cy-1', 'cy-2', 'relates-to').ok);
  t.ok(edge('cy-2', 'cy-1', 'blocks').ok, 'cy-1 -> cy-2 is a link: cy-2 may block on cy-1');
  t.ok(edge('cy-1', 'cy-2', 'tracks').ok);
});

t.test(
  'random dependency edges: the decider refuses exactly the edges that close an ordering cycle',
  async (t) => {
    const seed = Number(process.env.BEADS_SEED ?? Math.floor(Math.random() * 2 ** 31));
    t.comment(`BEADS_SEED=${seed}`);
    let state = seed >>> 0;
    const rand = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const kinds = ['blocks', 'waits-for', 'conditional-blocks', 'parent-child', 'relates-to', 'tracks'];
    const { model, run } = cityOf(7);
    const ids = [...model.beads.keys()];
    let refused = 0;
    let accepted = 0;
    for (let step = 0; step < 400; step++) {
      const [from, to, type] = [pick(ids), pick(ids), pick(kinds)];
      if (rand() < 0.25) {
        run({ type: 'RemoveDependency', id: from, dependsOn: to });
        continue;
      }
      const present = edgesOf(model).some((e) => e.from === from && e.to === to && e.type === type);
      // A bead may not depend on itself by any kind; otherwise only ordering kinds can close a cycle.
      const closes = !present && (from === to || orderingCycle([...edgesOf(model), { from, to, type }]));
      const outcome = run({ type: 'AddDependency', id: from, dependsOn: to, depType: type });
      if (outcome.ok === closes) {
        t.fail(`step ${step}: ${from} -> ${to} (${type}) was ${outcome.ok ? 'accepted' : 'refused'}`, {
          edges: edgesOf(model),
        });
        return;
      }
      if (outcome.ok) accepted++;
      else refused++;
    }
    t.same(orderingCycle(edgesOf(model)), false, 'the graph left has no ordering cycle');
    t.ok(
      refused > 10 && accepted > 10,
      `both answers were exercised (${accepted} accepted, ${refused} refused)`,
    );
  },
);
