import t from 'tap';
import type { BeadStore } from '../../actors/beads/index.ts';
import { isGcError } from '../../actors/runtime/errors.ts';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { evolveAll } from '../../machines/beads/evolve.ts';
import { reindexBead, type HalvedIndex } from '../../machines/beads/indexes.ts';
import { createModel, type BeadModel } from '../../machines/beads/model.ts';
import { cityHarness, forEachBackend, type CityHarness } from './helpers.ts';
import { beadsOnOrderingCycles } from './orderingOracle.ts';

/** mulberry32: a small seeded PRNG, so a failing run can be replayed with BEADS_SEED. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.BEADS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const STEPS = Number(process.env.BEADS_STEPS ?? 160);

/** The model as plain data, Map order (creation order) included, for deep comparison. */
function snapshot(model: Readonly<BeadModel>) {
  const sets = (m: Map<string, Set<string>>) =>
    [...m.entries()].map(([k, v]) => [k, [...v].sort()] as const).sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    prefix: model.prefix,
    seq: model.seq,
    nextNumber: model.nextNumber,
    beads: [...model.beads.entries()].map(([id, e]) => [
      id,
      e.ordinal,
      JSON.parse(JSON.stringify(e.bead)) as unknown,
    ]),
    indexes: Object.fromEntries(
      Object.entries(model.indexes)
        .filter(([name]) => name !== 'order')
        .map(([name, index]) => [
          name,
          index instanceof Map
            ? sets(index as Map<string, Set<string>>)
            : {
                open: sets((index as HalvedIndex).open),
                closed: sets((index as HalvedIndex).closed),
              },
        ]),
    ),
    order: [...model.indexes.order.newestFirst()].filter(([id, o]) => model.beads.get(id)?.ordinal === o),
    idempotency: [...model.idempotency.entries()].map(([k, r]) => [k, r.hash, r.bead.id]).sort(),
  };
}

/** The secondary indexes rebuilt from the beads alone (what `evolve` must keep them equal to). */
function indexesFromBeads(model: Readonly<BeadModel>) {
  const rebuilt = createModel(model.prefix);
  for (const [id, entry] of model.beads) {
    rebuilt.beads.set(id, entry);
    reindexBead(rebuilt.indexes, id, undefined, entry.bead);
  }
  return snapshot(rebuilt).indexes;
}

/** Every dependency edge of the model, for the oracle. */
const orderingEdges = (model: Readonly<BeadModel>) =>
  [...model.beads.values()].flatMap(({ bead }) =>
    (bead.dependencies ?? []).map((d) => ({ from: bead.id, to: d.depends_on_id, type: d.type })),
  );

/** A pure fold of `events` (as any reader of the log would see them). */
function foldOf(prefix: string, events: readonly JournalEvent[]) {
  const model = createModel(prefix);
  evolveAll(model, events, prefix);
  return snapshot(model);
}

/** One random command against the store; refusals (4xx) are part of the game, anything else fails. */
async function randomStep(store: BeadStore, rand: () => number): Promise<string> {
  const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(rand() * xs.length)];
  const ids = [...store.model.beads.keys()];
  const id = () => (rand() < 0.05 ? 'zz-404' : (pick(ids) ?? 'zz-404'));
  const word = () => pick(['alpha', 'beta', 'gamma', 'delta', 'omega'])!;
  const maybe = <T>(v: T) => (rand() < 0.5 ? v : undefined);
  const ops: Array<[string, () => Promise<unknown>]> = [
    [
      'create',
      () =>
        store.create(
          {
            title: word(),
            ...(rand() < 0.3 ? { type: pick(['task', 'bug', 'message', 'molecule'])! } : {}),
            ...(rand() < 0.3 ? { labels: [word(), word()] } : {}),
            ...(rand() < 0.3 ? { priority: Math.floor(rand() * 4) } : {}),
            ...(rand() < 0.2 ? { parent: id() } : {}),
            ...(rand() < 0.2 ? { rig: word() } : {}),
            ...(rand() < 0.2 ? { metadata: { 'gc.root_bead_id': id() } } : {}),
          },
          rand() < 0.3 ? { idempotencyKey: word() } : {},
        ),
    ],
    [
      'update',
      () =>
        store.update(id(), {
          title: maybe(word()),
          status: maybe(pick(['open', 'in_progress', 'closed', 'bogus'])!),
          labels: maybe([word()]),
          remove_labels: maybe([word()]),
          metadata: maybe({ k: word() }),
          parent: maybe(rand() < 0.5 ? null : id()),
          assignee: maybe(word()),
        }),
    ],
    ['close', () => store.close(id())],
    ['reopen', () => store.reopen(id())],
    ['delete', () => store.delete(id())],
    ['assign', () => store.assign(id(), word())],
    ['claim', () => store.claim(id(), word())],
    // Edges are drawn four times as often as other commands: the cycle check needs chains to refuse.
    ...Array.from({ length: 4 }, (): [string, () => Promise<unknown>] => [
      'depend',
      () => store.addDependency(id(), id(), pick(['blocks', 'waits-for', 'parent-child', 'relates-to'])),
    ]),
    ['undepend', () => store.removeDependency(id(), id())],
    ['defer', () => store.defer(id(), rand() < 0.5 ? null : '2040-01-01T00:00:00Z')],
    [
      'send',
      () =>
        store.sendMail(
          { to: word(), subject: word(), from: word() },
          rand() < 0.3 ? { idempotencyKey: word() } : {},
        ),
    ],
    ['reply', () => store.replyMail(id(), { body: word() })],
    ['read', () => store.markMailRead(id())],
    ['unread', () => store.markMailUnread(id())],
    ['archive', () => store.archiveMail(id())],
    ['unmail', () => store.deleteMail(id())],
    ['convoy', () => store.createConvoy({ title: word(), items: rand() < 0.5 ? [id()] : [] })],
    ['convoy add', () => store.addToConvoy(id(), [id()])],
    ['convoy remove', () => store.removeFromConvoy(id(), [id()])],
    ['convoy close', () => store.closeConvoy(id())],
    ['convoy delete', () => store.deleteConvoy(id())],
  ];
  const [name, run] = pick(ops)!;
  try {
    await run();
    return name;
  } catch (err) {
    if (isGcError(err) && err.status >= 400 && err.status < 500) return `${name} (refused ${err.status})`;
    throw err;
  }
}

/** Every event of the city as GET /v0/city/{c}/events pages them (newest first), oldest first. */
async function eventsOverHttp(h: CityHarness): Promise<JournalEvent[]> {
  const events: JournalEvent[] = [];
  let cursor = '';
  do {
    const res = await h.app.inject({
      url: `${h.base}/events?limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
    });
    if (res.statusCode !== 200) throw new Error(`GET /events answered ${res.statusCode}: ${res.body}`);
    const body = res.json<{ items: JournalEvent[] | null; next_cursor?: string }>();
    events.push(...(body.items ?? []));
    cursor = body.next_cursor ?? '';
  } while (cursor);
  return events.sort((a, b) => a.seq - b.seq);
}

forEachBackend(t, async (t, env) => {
  t.test(
    `random commands and restarts keep the store equal to a fold of its log (seed ${SEED})`,
    async (t) => {
      t.comment(`BEADS_SEED=${SEED} BEADS_STEPS=${STEPS}`);
      const rand = prng(SEED);
      // Every stop writes a snapshot, so each restart restores one and folds the rest: the comparisons below
      // check the snapshot path as much as the fold.
      const h = await cityHarness(t, env, { prefix: 'pr', snapshot: { min: 1, every: 50 } });
      const restartAt = new Set([Math.floor(STEPS / 3), Math.floor((2 * STEPS) / 3), STEPS]);
      const tally = new Map<string, number>();
      const cycles: string[] = [];
      for (let step = 1; step <= STEPS; step++) {
        const name = await randomStep(h.service.service, rand);
        tally.set(name, (tally.get(name) ?? 0) + 1);
        // Checked after every step: a later delete or undepend could break a cycle that was let in.
        const onCycles = beadsOnOrderingCycles(orderingEdges(h.service.service.model));
        if (onCycles.length > 0) cycles.push(`step ${step} (${name}): ${onCycles.join(', ')}`);
        if (!restartAt.has(step)) continue;
        const before = snapshot(h.service.service.model);
        await h.restart();
        const after = snapshot(h.service.service.model);
        t.equal(
          h.service.service.startup.snapshotSeq,
          before.seq > 0 ? before.seq : undefined,
          `step ${step}: restored from a snapshot (when there was anything to save)`,
        );
        t.same(after, before, `step ${step}: the rebuilt store equals the one before the restart`);
        t.same(
          after,
          foldOf('pr', await h.journal.list()),
          `step ${step}: it equals a pure fold of the journal's list`,
        );
        t.same(
          after.indexes,
          indexesFromBeads(h.service.service.model),
          `step ${step}: indexes match the beads`,
        );
        t.same(after, foldOf('pr', await eventsOverHttp(h)), `step ${step}: and a fold of GET /events`);
      }
      t.comment(`operations: ${JSON.stringify(Object.fromEntries([...tally].sort()))}`);
      // A run may delete everything it made; what it must have done is create some.
      const created = ['create', 'send', 'convoy'].reduce((n, op) => n + (tally.get(op) ?? 0), 0);
      t.ok(created > 0, 'the run created beads');
      t.same(
        cycles.slice(0, 5),
        [],
        'after no step did a bead wait on itself through ordering edges (oracle)',
      );
    },
  );
});
