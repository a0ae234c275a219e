/**
 * The edges of the graph, children and mail views (machines/beads/queries.ts, mailView.ts) the first tests
 * left open: a root's children found through their parent link alone, members shown in creation order
 * whatever order the walk met them, the `workflow_id` a bead names, the keys a message leaves out, and the
 * reply titles of a subject that only contains `re:` or of nothing at all. Expected values by hand.
 */
import t from 'tap';
import type { StoredBead } from '../../machines/beads/index.ts';
import { replyTitle, toMessage } from '../../machines/beads/mailView.ts';
import { childrenOf, graphOf } from '../../machines/beads/queries.ts';
import { beadCity } from '../helpers/beadCity.ts';

t.test('a graph: children through the root’s parent links, members in creation order', async (t) => {
  const city = beadCity('gr');
  const root = city.create({ title: 'root' });
  // Created before the member that names the root: the walk meets it after.
  const child = city.create({ title: 'child', parent: root });
  const member = city.create({ title: 'member', metadata: { 'gc.root_bead_id': root } });
  const grandchild = city.create({ title: 'grandchild', parent: member });
  const graph = graphOf(city.model, root)!;
  t.same(
    graph.beads.map((b) => b.id),
    [root, child, member, grandchild],
  );
  t.same(graph.deps, [
    { from: root, to: child, kind: 'parent-child' },
    { from: member, to: grandchild, kind: 'parent-child' },
  ]);
  t.same(
    graphOf(city.model, child)!.beads.map((b) => b.id),
    [child],
    'a bead with no members is a graph of itself',
  );
});

t.test('children: the workflow a bead names comes after its own children, once', async (t) => {
  const city = beadCity('wk');
  const parent = city.create({ title: 'p' });
  const workflow = city.create({ title: 'w' });
  const own = city.create({ title: 'own', parent });
  city.update(parent, { metadata: { workflow_id: workflow } });
  t.same(
    childrenOf(city.model, parent)!.map((b) => b.id),
    [own, workflow],
  );
  city.update(parent, { metadata: { workflow_id: workflow, molecule_id: workflow } });
  t.same(
    childrenOf(city.model, parent)!.map((b) => b.id),
    [own, workflow],
    'named twice, listed once',
  );
  const lone = city.create({ title: 'lone', metadata: { workflow_id: 'wk-99' } });
  t.same(childrenOf(city.model, lone), [], 'a workflow that does not exist is left out');
});

const message = (more: Partial<StoredBead>): StoredBead => ({
  id: 'ml-1',
  title: 'hi',
  status: 'open',
  issue_type: 'message',
  created_at: '2030-01-01T00:00:00Z',
  ...more,
});

t.test('a message leaves out the optional keys it has no value for', async (t) => {
  t.same(Object.keys(toMessage(message({}))).sort(), [
    'body',
    'created_at',
    'from',
    'id',
    'read',
    'subject',
    'to',
  ]);
  t.same(
    Object.keys(toMessage(message({ labels: ['cc:', 'priority:x'], metadata: { other: 'x' } }))).sort(),
    ['body', 'cc', 'created_at', 'from', 'id', 'read', 'subject', 'to'],
  );
  t.same(toMessage(message({ labels: ['cc:'] })).cc, [''], 'an empty cc address is still a cc');
  t.notOk('cc' in toMessage(message({ labels: ['read'] })));
  t.same(
    Object.keys(
      toMessage(
        message({ labels: ['thread:t1', 'reply-to:ml-0', 'priority:2'], metadata: { 'gc.rig': 'east' } }),
      ),
    ).sort(),
    ['body', 'created_at', 'from', 'id', 'priority', 'read', 'reply_to', 'rig', 'subject', 'thread_id', 'to'],
  );
});

t.test('reply titles: `re:` only at the start counts; nothing at all is (reply)', async (t) => {
  t.equal(replyTitle(undefined, 'Fwd: re: plan', undefined), 'Re: Fwd: re: plan');
  t.equal(replyTitle(undefined, 'are: you', undefined), 'Re: are: you');
  t.equal(replyTitle(undefined, '', undefined), '(reply)');
  t.equal(replyTitle(undefined, '', ''), '(reply)');
  t.equal(replyTitle(undefined, '', '\nsecond line'), '(reply)', 'an empty first line is no title');
});
