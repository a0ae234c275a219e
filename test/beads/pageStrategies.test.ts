/**
 * machines/beads/paging.ts `pageOf` asked everything its interface allows, beyond what today's callers ask:
 * no candidates and no total (every bead counted), and the walk of the creation order with a candidate set
 * and a bead test (more candidates than it sorts, with the total given). Each page is an oracle's: every
 * match, newest first. And a cursor is only what `encodeCursor` writes.
 */
import t from 'tap';
import { reindexBead } from '../../machines/beads/indexes.ts';
import { createModel, type BeadEntry, type BeadModel, type StoredBead } from '../../machines/beads/model.ts';
import { decodeCursor, encodeCursor, pageOf, type Page } from '../../machines/beads/paging.ts';

/** `n` beads, ordinals 2, 4, 6…; every third is a bug, every fifth is assigned to al. */
function model(n: number): BeadModel {
  const m = createModel('gc');
  for (let i = 1; i <= n; i++) {
    const bead: StoredBead = {
      id: `gc-${i}`,
      title: `t${i}`,
      status: 'open',
      issue_type: i % 3 === 0 ? 'bug' : 'task',
      created_at: '2026-01-01T00:00:00Z',
      ...(i % 5 === 0 ? { assignee: 'al' } : {}),
    };
    m.beads.set(bead.id, { bead, ordinal: 2 * i });
    reindexBead(m.indexes, bead.id, undefined, bead);
    m.indexes.order.push(bead.id, 2 * i);
  }
  return m;
}

const ids = (page: Page<string>) => ({ items: page.items, total: page.total, next: page.nextCursor });
function oracle(m: BeadModel, keep: (e: BeadEntry) => boolean, size: number, before?: number) {
  const all = [...m.beads.values()].filter(keep).sort((a, b) => b.ordinal - a.ordinal);
  const rest = all.filter((e) => before === undefined || e.ordinal < before);
  const items = rest.slice(0, size);
  const next = rest.length > size ? encodeCursor(items[size - 1]!.ordinal) : undefined;
  return { items: items.map((e) => e.bead.id), total: all.length, next };
}
const map = (e: BeadEntry) => e.bead.id;
const isBug = (b: StoredBead) => b.issue_type === 'bug';

t.test('no candidates and no total: every bead is counted, and the page is the newest matches', async (t) => {
  const m = model(60);
  for (const before of [undefined, 61, 3]) {
    t.same(
      ids(pageOf(m, { candidates: undefined, matches: isBug, map, size: 4, before })),
      oracle(m, (e) => isBug(e.bead), 4, before),
      `bugs before ${before}`,
    );
    t.same(
      ids(pageOf(m, { candidates: undefined, matchesId: (id) => id.endsWith('7'), map, size: 3, before })),
      oracle(m, (e) => e.bead.id.endsWith('7'), 3, before),
      `ids ending in 7 before ${before}`,
    );
  }
});

t.test('more candidates than are sorted: the walk keeps to the candidates and the bead test', async (t) => {
  const m = model(6000);
  // Every bead but the assigned ones: 4,800 candidates, past the sort limit.
  const candidates = new Set([...m.beads.keys()].filter((id) => m.beads.get(id)!.bead.assignee !== 'al'));
  const inCandidates = (e: BeadEntry) => candidates.has(e.bead.id);
  for (const before of [undefined, 11_000]) {
    t.same(
      ids(pageOf(m, { candidates, map, size: 5, before, total: candidates.size })),
      oracle(m, inCandidates, 5, before),
      `the candidates before ${before}`,
    );
    const page = pageOf(m, { candidates, matches: isBug, map, size: 5, before });
    t.same(
      ids(page),
      oracle(m, (e) => inCandidates(e) && isBug(e.bead), 5, before),
      `bugs before ${before}`,
    );
  }
});

t.test('a cursor is only what encodeCursor writes', async (t) => {
  t.equal(decodeCursor(encodeCursor(5)), 5);
  t.equal(decodeCursor(`!${encodeCursor(5)}`), undefined, 'base64url would skip the !');
  t.equal(decodeCursor(`${encodeCursor(5)}=`), undefined, 'nor padding');
});
