/**
 * machines/beads/indexes.ts `reindexBead` leaves a bead where it is in the sets of the values an update
 * does not change: readers that walk a set as it is (an agent's held beads, an order's tracking beads)
 * see the same order before and after an unrelated update.
 */
import t from 'tap';
import { createIndexes, reindexBead } from '../../machines/beads/indexes.ts';
import type { StoredBead } from '../../machines/beads/model.ts';

const bead = (id: string, extra: Partial<StoredBead> = {}): StoredBead => ({
  id,
  title: id,
  status: 'open',
  issue_type: 'task',
  created_at: '2026-01-01T00:00:00Z',
  assignee: 'al',
  labels: ['x'],
  metadata: { 'gc.rig': 'east' },
  ...extra,
});

t.test('an update that keeps a value keeps the bead in its place among that value’s beads', async (t) => {
  const indexes = createIndexes();
  const a = bead('a');
  for (const b of [a, bead('b'), bead('c')]) reindexBead(indexes, b.id, undefined, b);
  reindexBead(indexes, 'a', a, { ...a, title: 'renamed', priority: 2 });
  t.same([...indexes.byAssignee.open.get('al')!], ['a', 'b', 'c'], 'assignee');
  t.same([...indexes.byType.open.get('task')!], ['a', 'b', 'c'], 'type');
  t.same([...indexes.byRig.open.get('east')!], ['a', 'b', 'c'], 'rig');
  t.same([...indexes.byLabel.open.get('x')!], ['a', 'b', 'c'], 'label');
  t.same([...indexes.byStatus.get('open')!], ['a', 'b', 'c'], 'status');
  reindexBead(indexes, 'a', a, { ...a, assignee: 'bo' });
  t.same([...indexes.byAssignee.open.get('al')!], ['b', 'c'], 'a changed value moves');
  t.same([...indexes.byAssignee.open.get('bo')!], ['a']);
});
