import t from 'tap';
import { requestHash } from '../../actors/beads/index.ts';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import {
  createModel,
  decide,
  evolve,
  evolveAll,
  idNumber,
  idPrefixFor,
  beadMatcher,
  listBeads,
  decodeCursor,
  replyTitle,
  type BeadCommand,
  type BeadFilter,
  type BeadModel,
  type Outcome,
} from '../../machines/beads/index.ts';

const NOW = '2030-05-01T12:00:00.000Z';
const LOG = 'spec';
const ctx = { actor: 'tester', now: NOW };

/**
 * Given/when/then over the decider: `given` commands are decided and their events folded (as the
 * store would), `when` is decided against the result.
 */
function spec(...given: BeadCommand[]) {
  const model = createModel('sp');
  const events: JournalEvent[] = [];
  const fold = (outcome: Outcome<unknown>) => {
    if (!outcome.ok) throw new Error(`given command refused: ${outcome.rejection.message}`);
    for (const draft of [outcome.decision.event, ...outcome.decision.notices]) {
      if (!draft) continue;
      const event = { ...draft, seq: model.seq + 1, ts: draft.ts ?? NOW };
      events.push(event);
      evolve(model, event, LOG);
    }
  };
  for (const command of given) fold(decide(model, command, ctx));
  return {
    model,
    events,
    when: <C extends BeadCommand>(command: C) => decide(model, command, ctx),
  };
}

const create = (title: string, extra: Record<string, unknown> = {}) => ({
  type: 'CreateBead' as const,
  input: { title, ...extra },
});

t.test('ids are <prefix>-<n> with a prefix from the city name, and never reused', async (t) => {
  t.equal(idPrefixFor('Gastown'), 'ga');
  t.equal(idPrefixFor('x'), 'x');
  t.equal(idPrefixFor('--'), 'gc');
  t.equal(idNumber('ga-12', 'ga'), 12);
  t.equal(idNumber('ga-012', 'ga'), undefined);
  t.equal(idNumber('gab-1', 'ga'), undefined);
  t.equal(idNumber('ga-1x', 'ga'), undefined);
  const s = spec(create('a'), create('b'), { type: 'DeleteBead', id: 'sp-2' });
  const next = s.when(create('c'));
  t.ok(next.ok && next.decision.result.bead.id === 'sp-3', 'a deleted id is not handed out again');
  const foreign = createModel('sp');
  evolve(
    foreign,
    {
      seq: 1,
      type: 'bead.created',
      ts: NOW,
      actor: 'x',
      payload: { bead: { id: 'sp-41', title: 't', status: 'open', issue_type: 'task', created_at: NOW } },
    },
    LOG,
  );
  t.equal(foreign.nextNumber, 42, 'ids written by another writer count too');
});

t.test('decide is pure: the model is untouched and the same inputs decide the same events', async (t) => {
  const s = spec(create('a'), create('b'));
  const before = JSON.stringify([...s.model.beads], null, 0) + s.model.seq;
  const command: BeadCommand = { type: 'AddDependency', id: 'sp-1', dependsOn: 'sp-2', depType: 'blocks' };
  const one = s.when(command);
  const two = s.when(command);
  t.same(one, two);
  t.equal(JSON.stringify([...s.model.beads], null, 0) + s.model.seq, before);
});

t.test('evolve folds by seq exactly once and keeps its indexes in step', async (t) => {
  const s = spec(
    create('root'),
    create('child', { parent: 'sp-1', metadata: { 'gc.root_bead_id': 'sp-1' } }),
    { type: 'UpdateBead', id: 'sp-2', patch: { parent: null } },
  );
  t.same([...(s.model.indexes.roots.get('sp-1') ?? [])], ['sp-2']);
  t.notOk(s.model.indexes.children.has('sp-1'), 'a cleared parent leaves no empty index entry');
  const replayed = createModel('sp');
  evolveAll(replayed, [...s.events, ...s.events], LOG);
  t.equal(replayed.seq, s.model.seq, 'events at or below the seq are ignored');
  t.same([...replayed.beads.keys()], [...s.model.beads.keys()]);
  const deleted = spec(create('p'), create('c', { parent: 'sp-1' }), { type: 'DeleteBead', id: 'sp-2' });
  t.notOk(deleted.model.indexes.children.has('sp-1'));
});

t.test('a keyed create is recorded from its bead.created, so the key outlives the bead', async (t) => {
  const keyed = {
    type: 'CreateBead' as const,
    input: { title: 'x' },
    idempotency: { key: 'create-bead:k', hash: 'h1' },
  };
  const s = spec(keyed, { type: 'DeleteBead', id: 'sp-1' });
  const same = s.when(keyed);
  t.ok(same.ok && same.decision.result.replayed && !same.decision.event, 'replayed without an event');
  const other = s.when({ ...keyed, idempotency: { key: 'create-bead:k', hash: 'h2' } });
  t.same(other, {
    ok: false,
    rejection: {
      kind: 'idempotency_mismatch',
      message: 'Idempotency-Key reused with different request body',
    },
  });
  const renamed = spec(keyed, {
    type: 'UpdateBead',
    id: 'sp-1',
    patch: { metadata: { 'gc.idempotency_key': 'x' } },
  });
  t.equal(renamed.model.idempotency.size, 1, 'later updates of the metadata do not re-key it');
});

t.test('the request hash ignores key order and undefined fields', async (t) => {
  t.equal(requestHash({ a: 1, b: [1, { c: 2, d: 3 }] }), requestHash({ b: [1, { d: 3, c: 2 }], a: 1 }));
  t.equal(requestHash({ a: 1, b: undefined }), requestHash({ a: 1 }));
  t.not(requestHash({ a: 1 }), requestHash({ a: '1' }));
});

t.test('indexed list pages match a naive filter of every bead, newest first, for random data', async (t) => {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  for (let round = 0; round < 40; round++) {
    const model = createModel('rx');
    let seq = 0;
    const put = (type: string, bead: object) =>
      evolve(model, { seq: ++seq, type, ts: NOW, actor: 'x', payload: { bead } }, LOG);
    const beads = 5 + Math.floor(rand() * 80);
    for (let i = 1; i <= beads; i++) {
      const bead = {
        id: `rx-${i}`,
        title: 't',
        status: pick(['open', 'open', 'in_progress', 'closed']),
        issue_type: pick(['task', 'bug']),
        created_at: NOW,
        ...(rand() < 0.7 ? { assignee: pick(['a', 'b', 'c']) } : {}),
        ...(rand() < 0.7
          ? {
              labels: [pick(['x', 'y', 'z']), pick(['x', 'y', 'z'])].filter(
                (l, j, ls) => ls.indexOf(l) === j,
              ),
            }
          : {}),
        ...(rand() < 0.5 ? { metadata: { 'gc.rig': pick(['east', 'west']) } } : {}),
      };
      put('bead.created', bead);
      if (rand() < 0.2) put('bead.deleted', bead);
      else if (rand() < 0.3)
        put('bead.updated', { ...bead, status: pick(['open', 'closed']), labels: [pick(['x', 'y'])] });
    }
    const filter: BeadFilter = {
      ...(rand() < 0.3 ? { status: pick(['open', 'closed', 'in_progress']) } : {}),
      ...(rand() < 0.3 ? { type: pick(['task', 'bug']) } : {}),
      ...(rand() < 0.3 ? { label: pick(['x', 'y', 'z']) } : {}),
      ...(rand() < 0.3 ? { assignee: pick(['a', 'b']) } : {}),
      ...(rand() < 0.3 ? { rig: pick(['east', 'west']) } : {}),
      ...(rand() < 0.3 ? { all: true } : {}),
    };
    const matches = beadMatcher(filter);
    const expected = [...model.beads.values()]
      .filter((e) => matches(e.bead))
      .sort((a, b) => b.ordinal - a.ordinal)
      .map((e) => e.bead.id);
    const size = 1 + Math.floor(rand() * 6);
    const got: string[] = [];
    let before: number | undefined;
    for (;;) {
      const page = listBeads(model, filter, size, before);
      t.equal(page.total, expected.length, `round ${round} total`);
      got.push(...page.items.map((b) => b.id));
      if (!page.nextCursor) break;
      before = decodeCursor(page.nextCursor);
    }
    t.same(got, expected, `round ${round}: ${JSON.stringify(filter)} by ${size}`);
  }
});

t.test('a reply is titled by its subject, else Re: the original, else its first line', async (t) => {
  t.equal(replyTitle('Own', 'Plan', ''), 'Own');
  t.equal(replyTitle(undefined, 'Plan', ''), 'Re: Plan');
  t.equal(replyTitle(undefined, 're: Plan', ''), 're: Plan');
  t.equal(replyTitle(undefined, '', 'line one\nline two'), 'line one');
  t.equal(replyTitle(undefined, '', 'x'.repeat(100)), `${'x'.repeat(77)}...`);
  t.equal(replyTitle(undefined, '', ''), '(reply)');
});

t.test('membership steps are no-ops once done or once their beads are gone', async (t) => {
  const s = spec(create('a'), { type: 'CreateConvoy', title: 'c', items: [] });
  const add: BeadCommand = { type: 'SetConvoyMember', convoyId: 'sp-2', id: 'sp-1', member: true };
  const first = s.when(add);
  t.ok(first.ok && first.decision.result === true && first.decision.event);
  const done = spec(create('a'), { type: 'CreateConvoy', title: 'c', items: [] }, add).when(add);
  t.ok(done.ok && done.decision.result === false && !done.decision.event);
  const gone = spec(
    create('a'),
    { type: 'CreateConvoy', title: 'c', items: [] },
    { type: 'DeleteBead', id: 'sp-1' },
  );
  const late = gone.when(add);
  t.ok(late.ok && late.decision.result === false && !late.decision.event);
});

t.test('the model is a pure function of the events: folding them twice gives equal models', async (t) => {
  const s = spec(
    create('a', { labels: ['x'] }),
    create('b', { parent: 'sp-1' }),
    { type: 'AddDependency', id: 'sp-2', dependsOn: 'sp-1', depType: 'waits-for' },
    { type: 'SendMail', input: { to: 'bob', subject: 'hi', from: 'al' } },
    { type: 'CloseBead', id: 'sp-1' },
  );
  const fold = (): BeadModel => {
    const m = createModel('sp');
    evolveAll(m, s.events, LOG);
    return m;
  };
  t.same(fold(), fold());
  t.same(fold(), s.model);
});
