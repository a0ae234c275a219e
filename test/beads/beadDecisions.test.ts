/**
 * The bead deciders (machines/beads/decideBead.ts) on a bead city: what a create records, how a patch
 * applies (labels, metadata, parent, defer), which change writes which event, each refusal by its
 * message, and assign and claim with their no-ops. Expected values worked out from the contract by hand.
 */
import t from 'tap';
import type { StoredBead } from '../../machines/beads/index.ts';
import { beadCity, CITY_NOW } from '../helpers/beadCity.ts';

const refusal = (out: { ok: boolean; rejection?: unknown }) => (out.ok ? 'accepted' : out.rejection);

t.test(
  'a create: the next id, open, a task unless typed, labels once, rig and key in metadata',
  async (t) => {
    const city = beadCity('bd');
    const parent = city.create({ title: 'parent' });
    const created = city.run({
      type: 'CreateBead',
      input: {
        title: 'child',
        description: 'd',
        assignee: 'ann',
        priority: 2,
        labels: ['x', 'y', 'x'],
        metadata: { k: 'v' },
        parent,
        rig: 'app',
        defer_until: '2031-01-01T00:00:00Z',
      },
      idempotency: { key: 'create:k', hash: 'h' },
      ephemeral: true,
    }) as { bead: StoredBead; replayed: boolean };
    t.equal(created.replayed, false);
    t.match(created.bead, {
      id: 'bd-2',
      title: 'child',
      status: 'open',
      issue_type: 'task',
      created_at: CITY_NOW,
      updated_at: CITY_NOW,
      description: 'd',
      assignee: 'ann',
      priority: 2,
      labels: ['x', 'y'],
      parent,
      defer_until: '2031-01-01T00:00:00Z',
      ephemeral: true,
    });
    t.same(created.bead.metadata, {
      k: 'v',
      'gc.rig': 'app',
      'gc.idempotency_key': 'create:k',
      'gc.request_sha256': 'h',
    });
    t.match(city.written.at(-1), {
      type: 'bead.created',
      actor: 'tester',
      subject: 'bd-2',
      message: 'child',
    });
    t.equal(
      (city.run({ type: 'CreateBead', input: { title: 't', type: 'bug' } }) as { bead: StoredBead }).bead
        .issue_type,
      'bug',
    );
    t.equal(
      (city.run({ type: 'CreateBead', input: { title: 't', type: '' } }) as { bead: StoredBead }).bead
        .issue_type,
      'task',
    );
  },
);

t.test('a create is refused for a missing parent, a bad defer, or a key with another body', async (t) => {
  const city = beadCity('bd');
  t.same(refusal(city.attempt({ type: 'CreateBead', input: { title: 't', parent: 'bd-9' } })), {
    kind: 'not_found',
    message: 'parent bead bd-9 not found',
  });
  t.same(refusal(city.attempt({ type: 'CreateBead', input: { title: 't', defer_until: 'tomorrow' } })), {
    kind: 'invalid',
    message: 'defer_until is not an RFC 3339 date-time: tomorrow',
  });
  const idempotency = { key: 'create:k', hash: 'h' };
  const first = city.run({ type: 'CreateBead', input: { title: 't' }, idempotency }) as { bead: StoredBead };
  const written = city.written.length;
  t.same(city.run({ type: 'CreateBead', input: { title: 't' }, idempotency }), {
    bead: first.bead,
    replayed: true,
  });
  t.equal(city.written.length, written);
  t.same(
    refusal(
      city.attempt({ type: 'CreateBead', input: { title: 'u' }, idempotency: { ...idempotency, hash: 'g' } }),
    ),
    {
      kind: 'idempotency_mismatch',
      message: 'Idempotency-Key reused with different request body',
    },
  );
});

t.test('a patch: each field, labels added then removed, metadata merged, parent cleared by ""', async (t) => {
  const city = beadCity('bd');
  const parent = city.create({ title: 'p' });
  const id = city.create({ title: 't', labels: ['a', 'b'], metadata: { k1: 'v1' }, parent });
  city.update(id, {
    title: 'T',
    description: 'D',
    type: 'bug',
    priority: 1,
    assignee: 'bob',
    labels: ['c', 'a'],
    remove_labels: ['b'],
    metadata: { k2: 'v2' },
    parent: '',
  });
  const bead = city.model.beads.get(id)!.bead;
  t.match(bead, {
    title: 'T',
    description: 'D',
    issue_type: 'bug',
    priority: 1,
    assignee: 'bob',
    labels: ['a', 'c'],
  });
  t.same(bead.metadata, { k1: 'v1', k2: 'v2' });
  t.notOk(bead.parent, 'parent cleared');
  t.match(city.written.at(-1), { type: 'bead.updated', subject: id, message: 'T' });
  city.update(id, { remove_labels: ['a'] });
  t.same(city.model.beads.get(id)!.bead.labels, ['c'], 'removing alone');
  city.update(id, { metadata: {} });
  t.same(city.model.beads.get(id)!.bead.metadata, { k1: 'v1', k2: 'v2' }, 'an empty metadata patch keeps it');
  city.run({ type: 'UpdateBead', id, patch: { defer_until: '2031-01-01T00:00:00Z' } });
  t.equal(city.model.beads.get(id)!.bead.defer_until, '2031-01-01T00:00:00Z');
  city.run({ type: 'UpdateBead', id, patch: { defer_until: null } });
  t.notOk(city.model.beads.get(id)!.bead.defer_until, 'null clears the defer');
  city.update(id, { parent });
  t.equal(city.model.beads.get(id)!.bead.parent, parent);
});

t.test('an unchanged patch writes nothing; a move to closed writes bead.closed', async (t) => {
  const city = beadCity('bd');
  const id = city.create({ title: 't', labels: ['a'] });
  const written = city.written.length;
  city.update(id, { title: 't', labels: ['a'] });
  t.equal(city.written.length, written, 'nothing changed');
  city.update(id, { status: 'closed' });
  t.match(city.written.at(-1), { type: 'bead.closed', subject: id });
  city.update(id, { status: 'closed', description: 'after' });
  t.match(city.written.at(-1), { type: 'bead.updated' }, 'already closed: an update');
});

t.test('a patch is refused for each bad field, and changes nothing', async (t) => {
  const city = beadCity('bd');
  const a = city.create({ title: 'a' });
  const b = city.create({ title: 'b', parent: a });
  const cases: Array<[object, object]> = [
    [{ title: '' }, { kind: 'invalid', message: 'title must not be empty' }],
    [{ status: 'done' }, { kind: 'invalid', message: 'unknown status "done"' }],
    [{ type: '' }, { kind: 'invalid', message: 'type must not be empty' }],
    [{ parent: 'bd-9' }, { kind: 'not_found', message: 'parent bead bd-9 not found' }],
    [{ parent: b }, { kind: 'conflict', message: `parent ${b} would make bead ${a} its own ancestor` }],
    [{ defer_until: 'soon' }, { kind: 'invalid', message: 'defer_until is not an RFC 3339 date-time: soon' }],
  ];
  const written = city.written.length;
  for (const [patch, rejection] of cases)
    t.same(refusal(city.attempt({ type: 'UpdateBead', id: a, patch })), rejection, JSON.stringify(patch));
  t.equal(city.written.length, written);
  t.same(refusal(city.attempt({ type: 'UpdateBead', id: 'bd-9', patch: { title: 'x' } })), {
    kind: 'not_found',
    message: 'bead bd-9 not found',
  });
});

t.test('close, reopen and delete: their events, and the conflicts', async (t) => {
  const city = beadCity('bd');
  const id = city.create({ title: 't' });
  city.close(id);
  t.match(city.written.at(-1), { type: 'bead.closed', subject: id });
  t.same(refusal(city.attempt({ type: 'CloseBead', id })), {
    kind: 'conflict',
    message: `bead ${id} is already closed`,
  });
  city.run({ type: 'ReopenBead', id });
  t.equal(city.model.beads.get(id)!.bead.status, 'open');
  t.match(city.written.at(-1), { type: 'bead.updated', subject: id });
  t.same(refusal(city.attempt({ type: 'ReopenBead', id })), {
    kind: 'conflict',
    message: `bead ${id} is not closed`,
  });
  city.run({ type: 'DeleteBead', id });
  t.match(city.written.at(-1), { type: 'bead.deleted', subject: id, payload: { bead: { id, title: 't' } } });
  for (const type of ['CloseBead', 'ReopenBead', 'DeleteBead'] as const)
    t.same(refusal(city.attempt({ type, id: 'bd-9' })), {
      kind: 'not_found',
      message: 'bead bd-9 not found',
    });
});

t.test('assign: hooks and unhooks, trims, writes nothing when unchanged, not on a closed bead', async (t) => {
  const city = beadCity('bd');
  const id = city.create({ title: 't' });
  city.run({ type: 'AssignBead', id, assignee: '  ann ' });
  t.equal(city.model.beads.get(id)!.bead.assignee, 'ann');
  t.match(city.written.at(-1), { type: 'bead.updated' });
  const written = city.written.length;
  city.run({ type: 'AssignBead', id, assignee: 'ann' });
  t.equal(city.written.length, written, 'the same assignee: nothing');
  city.run({ type: 'AssignBead', id, assignee: ' ' });
  t.notOk(city.model.beads.get(id)!.bead.assignee, 'a blank assignee unhooks');
  const unhooked = city.written.length;
  city.run({ type: 'AssignBead', id, assignee: '' });
  t.equal(city.written.length, unhooked, 'unhooking an unhooked bead: nothing');
  city.close(id);
  t.same(refusal(city.attempt({ type: 'AssignBead', id, assignee: 'bob' })), {
    kind: 'conflict',
    message: `bead ${id} is closed`,
  });
  t.same(refusal(city.attempt({ type: 'AssignBead', id: 'bd-9', assignee: 'bob' })), {
    kind: 'not_found',
    message: 'bead bd-9 not found',
  });
});

t.test('claim: takes a free bead in progress, refuses a held one with a notice, holds its own', async (t) => {
  const city = beadCity('bd');
  const id = city.create({ title: 't' });
  t.same(refusal(city.attempt({ type: 'ClaimBead', id, claimant: ' ' })), {
    kind: 'invalid',
    message: 'claimant is required',
  });
  const won = city.run({ type: 'ClaimBead', id, claimant: 'w-1' }) as { claimed: boolean; bead: StoredBead };
  t.equal(won.claimed, true);
  t.match(won.bead, { assignee: 'w-1', status: 'in_progress' });
  t.match(city.written.at(-1), { type: 'bead.updated', subject: id });
  let written = city.written.length;
  t.same(city.run({ type: 'ClaimBead', id, claimant: 'w-1' }), {
    claimed: true,
    bead: city.model.beads.get(id)!.bead,
  });
  t.equal(city.written.length, written, 'claiming what one holds: nothing');
  t.same(city.run({ type: 'ClaimBead', id, claimant: 'w-2' }), { claimed: false, holder: 'w-1' });
  t.same(
    city.written.slice(written).map((e) => [e.type, e.subject, e.payload]),
    [['bead.claim_rejected', id, { bead_id: id, existing_claimant: 'w-1', attempted_claimant: 'w-2' }]],
  );
  t.equal(city.model.beads.get(id)!.bead.assignee, 'w-1', 'still held by the first');
  const assigned = city.create({ title: 'hooked', assignee: 'w-3' });
  written = city.written.length;
  city.run({ type: 'ClaimBead', id: assigned, claimant: 'w-3' });
  t.equal(city.model.beads.get(assigned)!.bead.status, 'in_progress', 'its own hooked bead goes in progress');
  t.equal(city.written.length, written + 1);
  city.close(id);
  t.same(refusal(city.attempt({ type: 'ClaimBead', id, claimant: 'w-1' })), {
    kind: 'conflict',
    message: `bead ${id} is closed`,
  });
  t.same(refusal(city.attempt({ type: 'ClaimBead', id: 'bd-9', claimant: 'w-1' })), {
    kind: 'not_found',
    message: 'bead bd-9 not found',
  });
});

t.test(
  'dependencies: typed edges added once, refused when missing, malformed or cyclic, removed by type',
  async (t) => {
    const city = beadCity('bd');
    const [a, b, c] = ['a', 'b', 'c'].map((title) => city.create({ title }));
    const add = (id: string, dependsOn: string, depType: string) =>
      refusal(city.attempt({ type: 'AddDependency', id, dependsOn, depType }));
    t.same(add('bd-9', a!, 'blocks'), { kind: 'not_found', message: 'bead bd-9 not found' });
    t.same(add(a!, 'bd-9', 'blocks'), { kind: 'not_found', message: 'bead bd-9 not found' });
    for (const bad of ['', 'Blocks', '1st', 'a'.repeat(65), 'a b'])
      t.same(add(a!, b!, bad), {
        kind: 'invalid',
        message: `invalid dependency type ${JSON.stringify(bad)}`,
      });
    t.equal(add(a!, b!, 'a'.repeat(64)), 'accepted', '64 characters is the longest type');
    t.same(add(a!, a!, 'related'), {
      kind: 'conflict',
      message: `dependency ${a} -> ${a} (related) would create a cycle`,
    });
    t.equal(add(a!, b!, 'blocks'), 'accepted');
    t.equal(add(b!, a!, 'related'), 'accepted', 'a non-ordering edge back is no cycle');
    t.same(add(b!, a!, 'waits-for'), {
      kind: 'conflict',
      message: `dependency ${b} -> ${a} (waits-for) would create a cycle`,
    });
    const written = city.written.length;
    t.equal(add(a!, b!, 'blocks'), 'accepted');
    t.equal(city.written.length, written, 'an edge already there: nothing');
    t.equal(add(a!, b!, 'related'), 'accepted', 'the same pair with another type is another edge');
    t.equal(add(a!, c!, 'blocks'), 'accepted');
    const typesOf = (id: string) =>
      (city.model.beads.get(id)!.bead.dependencies ?? []).map(
        (d) => `${d.issue_id}>${d.depends_on_id}:${d.type}`,
      );
    t.same(typesOf(a!), [
      `${a}>${b}:${'a'.repeat(64)}`,
      `${a}>${b}:blocks`,
      `${a}>${b}:related`,
      `${a}>${c}:blocks`,
    ]);
    city.run({ type: 'RemoveDependency', id: a!, dependsOn: b!, depType: 'blocks' });
    t.same(
      typesOf(a!),
      [`${a}>${b}:${'a'.repeat(64)}`, `${a}>${b}:related`, `${a}>${c}:blocks`],
      'only that type',
    );
    t.match(city.written.at(-1), { type: 'bead.updated', subject: a });
    city.run({ type: 'RemoveDependency', id: a!, dependsOn: b! });
    t.same(typesOf(a!), [`${a}>${c}:blocks`], 'without a type: every edge to it');
    t.same(refusal(city.attempt({ type: 'RemoveDependency', id: a!, dependsOn: b! })), {
      kind: 'not_found',
      message: `dependency ${a} -> ${b} not found`,
    });
    t.same(refusal(city.attempt({ type: 'RemoveDependency', id: a!, dependsOn: c!, depType: 'related' })), {
      kind: 'not_found',
      message: `dependency ${a} -> ${c} not found`,
    });
    t.same(refusal(city.attempt({ type: 'RemoveDependency', id: 'bd-9', dependsOn: c! })), {
      kind: 'not_found',
      message: 'bead bd-9 not found',
    });
  },
);
