/**
 * The beads' secondary indexes (machines/beads/indexes.ts) against an oracle written from their contract
 * alone: after any sequence of creates, updates and deletes, `reindexBead` leaves exactly the indexes the
 * beads imply (no stale id, no empty entry), and `indexAll` builds the same from scratch. And the creation
 * order: newest first from any keyset position, tombstones kept until they outnumber the live beads.
 */
import t from 'tap';
import {
  CreationOrder,
  createIndexes,
  indexAll,
  reindexBead,
  type BeadIndexes,
} from '../../machines/beads/indexes.ts';
import type { StoredBead } from '../../machines/beads/storedBead.ts';

/** mulberry32, seeded so a failing run replays with INDEX_SEED. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}
const SEED = Number(process.env.INDEX_SEED ?? Math.floor(Math.random() * 2 ** 31));

type Rand = () => number;
const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

function randomBead(rand: Rand, id: string): StoredBead {
  const metadata: Record<string, string> = {};
  const rig = pick(rand, [undefined, 'east', 'west', '']);
  const root = pick(rand, [undefined, 'r1', 'r2', '']);
  if (rig !== undefined) metadata['gc.rig'] = rig;
  if (root !== undefined) metadata['gc.root_bead_id'] = root;
  if (rand() < 0.3) metadata.other = 'x';
  const labels = ['x', 'y', 'z'].filter(() => rand() < 0.4);
  if (rand() < 0.5) labels.reverse();
  return {
    id,
    title: id,
    status: pick(rand, ['open', 'in_progress', 'blocked', 'closed', 'closed']),
    issue_type: pick(rand, ['task', 'bug', '']),
    created_at: '2026-01-01T00:00:00Z',
    ...(rand() < 0.7 ? { assignee: pick(rand, ['al', 'bo', '']) } : {}),
    ...(rand() < 0.6 ? { parent: pick(rand, ['p1', 'p2', '']) } : {}),
    ...(Object.keys(metadata).length || rand() < 0.5 ? { metadata } : {}),
    ...(labels.length || rand() < 0.5 ? { labels } : {}),
  };
}

/** The same bead with one field changed, or its labels as a new equal array: the small updates. */
function nudge(rand: Rand, bead: StoredBead): StoredBead {
  const other = randomBead(rand, bead.id);
  switch (Math.floor(rand() * 7)) {
    case 0:
      return { ...bead, status: other.status };
    case 1:
      return { ...bead, assignee: other.assignee };
    case 2:
      return { ...bead, labels: bead.labels ? [...bead.labels] : bead.labels };
    case 3:
      return { ...bead, labels: other.labels };
    case 4:
      return { ...bead, metadata: other.metadata };
    case 5:
      return { ...bead, issue_type: other.issue_type, parent: other.parent };
    default:
      return bead;
  }
}

type Entries = [string, string[]][];
const sets = (m: Map<string, Set<string>>): Entries =>
  [...m].map(([k, v]) => [k, [...v].sort()] as [string, string[]]).sort(([a], [b]) => (a < b ? -1 : 1));

function view(ix: BeadIndexes) {
  const halves = (h: { open: Map<string, Set<string>>; closed: Map<string, Set<string>> }) => ({
    open: sets(h.open),
    closed: sets(h.closed),
  });
  return {
    byStatus: sets(ix.byStatus),
    children: sets(ix.children),
    roots: sets(ix.roots),
    byType: halves(ix.byType),
    byAssignee: halves(ix.byAssignee),
    byRig: halves(ix.byRig),
    byLabel: halves(ix.byLabel),
  };
}

/** What the indexes must hold for `beads`, from the contract: value → ids, empty or absent values left out. */
function oracle(beads: ReadonlyMap<string, StoredBead>) {
  const build = (values: (b: StoredBead) => (string | undefined)[], keep: (b: StoredBead) => boolean) => {
    const m = new Map<string, Set<string>>();
    for (const [id, b] of beads) {
      if (!keep(b)) continue;
      for (const v of values(b)) if (v) m.set(v, (m.get(v) ?? new Set()).add(id));
    }
    return sets(m);
  };
  const all = () => true;
  const halves = (values: (b: StoredBead) => (string | undefined)[]) => ({
    open: build(values, (b) => b.status !== 'closed'),
    closed: build(values, (b) => b.status === 'closed'),
  });
  return {
    byStatus: build((b) => [b.status], all),
    children: build((b) => [b.parent], all),
    roots: build((b) => [b.metadata?.['gc.root_bead_id']], all),
    byType: halves((b) => [b.issue_type]),
    byAssignee: halves((b) => [b.assignee]),
    byRig: halves((b) => [b.metadata?.['gc.rig']]),
    byLabel: halves((b) => b.labels ?? []),
  };
}

t.test(`reindexBead keeps every index equal to the oracle's (INDEX_SEED=${SEED})`, async (t) => {
  const rand = prng(SEED);
  for (let run = 0; run < 20; run++) {
    const indexes = createIndexes();
    const beads = new Map<string, StoredBead>();
    for (let step = 0; step < 150; step++) {
      const id = `b${Math.floor(rand() * 8)}`;
      const before = beads.get(id);
      const roll = rand();
      const after = !before
        ? randomBead(rand, id)
        : roll < 0.15
          ? undefined
          : roll < 0.4
            ? randomBead(rand, id)
            : nudge(rand, before);
      reindexBead(indexes, id, before, after);
      if (after) beads.set(id, after);
      else beads.delete(id);
      const got = view(indexes);
      const want = oracle(beads);
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        t.same(got, want, `run ${run} step ${step}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
        return;
      }
    }
  }
  t.pass('3,000 steps matched the oracle');
});

t.test(
  `indexAll builds what the oracle says, beside beads already indexed (INDEX_SEED=${SEED})`,
  async (t) => {
    const rand = prng(SEED + 1);
    for (let run = 0; run < 20; run++) {
      const indexes = createIndexes();
      const early = new Map<string, StoredBead>();
      for (let i = 0; i < 5; i++) early.set(`e${i}`, randomBead(rand, `e${i}`));
      for (const [id, bead] of early) reindexBead(indexes, id, undefined, bead);
      const late = new Map<string, { bead: StoredBead }>();
      for (let i = 0; i < 12; i++) late.set(`l${i}`, { bead: randomBead(rand, `l${i}`) });
      indexAll(indexes, late);
      const all = new Map([...early, ...[...late].map(([id, { bead }]) => [id, bead] as const)]);
      t.same(view(indexes), oracle(all), `run ${run}`);
    }
    t.same(view(createIndexes()), oracle(new Map()), 'fresh indexes are empty');
  },
);

t.test('indexAll keeps the beads in the order given within each value', async (t) => {
  const indexes = createIndexes();
  const bead = (id: string) => ({ bead: { id, title: id, status: 'open', labels: ['x'] } as StoredBead });
  indexAll(
    indexes,
    new Map([
      ['c', bead('c')],
      ['a', bead('a')],
      ['b', bead('b')],
    ]),
  );
  t.same([...indexes.byStatus.get('open')!], ['c', 'a', 'b']);
  t.same([...indexes.byLabel.open.get('x')!], ['c', 'a', 'b']);
});

t.test('the creation order: newest first from any position, below the ordinal given', async (t) => {
  const order = new CreationOrder();
  const ordinals = [3, 5, 8, 13, 21];
  ordinals.forEach((o, i) => order.push(`b${i}`, o));
  const walk = (before?: number) => [...order.newestFirst(before)].map(([id]) => id);
  t.same(walk(), ['b4', 'b3', 'b2', 'b1', 'b0']);
  t.same(walk(13), ['b2', 'b1', 'b0'], 'strictly below 13');
  t.same(walk(14), ['b3', 'b2', 'b1', 'b0']);
  t.same(walk(3), []);
  t.same(walk(4), ['b0']);
  t.same(walk(2), []);
  t.same(walk(22), ['b4', 'b3', 'b2', 'b1', 'b0']);
  t.same(walk(21), ['b3', 'b2', 'b1', 'b0']);
  t.same(
    [...order.newestFirst(9)],
    [
      ['b2', 8],
      ['b1', 5],
      ['b0', 3],
    ],
    'with their ordinals',
  );
  order.pop();
  t.same(walk(), ['b3', 'b2', 'b1', 'b0'], 'pop takes back the last push');
  order.push('b5', 34);
  t.same(walk(34), ['b3', 'b2', 'b1', 'b0'], 'the ordinal goes with its id after a pop');
  t.same([...order.newestFirst(35)][0], ['b5', 34]);
  for (let n = 1; n <= 12; n++) {
    const big = new CreationOrder();
    for (let i = 0; i < n; i++) big.push(`x${i}`, i * 2);
    for (let before = -1; before <= n * 2 + 1; before++)
      t.same(
        [...big.newestFirst(before)].map(([, o]) => o),
        Array.from({ length: n }, (_, i) => (n - 1 - i) * 2).filter((o) => o < before),
        `${n} entries, before ${before}`,
      );
  }
});

t.test('tombstones stay until they outnumber the live beads, then the order compacts', async (t) => {
  const order = new CreationOrder();
  for (let i = 0; i < 6; i++) order.push(`b${i}`, i);
  const dead = new Set<string>();
  const isLive = (id: string) => !dead.has(id);
  const walk = () => [...order.newestFirst()].map(([id]) => id);
  dead.add('b1');
  order.drop(isLive);
  dead.add('b3');
  order.drop(isLive);
  dead.add('b5');
  order.drop(isLive);
  t.same(walk(), ['b5', 'b4', 'b3', 'b2', 'b1', 'b0'], 'three dead of six: kept');
  dead.add('b0');
  order.drop(isLive);
  t.same(walk(), ['b4', 'b2'], 'four dead of six: compacted to the live ones');
  t.same([...order.newestFirst(3)], [['b2', 2]], 'their ordinals kept');
  dead.add('b2');
  order.drop(isLive);
  t.same(walk(), ['b4', 'b2'], 'one dead of two after the compaction: kept (the count restarted)');
  dead.add('b4');
  order.drop(isLive);
  t.same(walk(), [], 'two of two: compacted');
  order.push('b6', 6);
  t.same(walk(), ['b6']);
});
