/**
 * Two corners of the mail views (machines/beads/mailQueries.ts, mailView.ts): a thread read for one rig
 * holds messages that carry no metadata at all (they are of no rig), and a reply to nothing titles itself.
 */
import t from 'tap';
import { reindexBead } from '../../machines/beads/indexes.ts';
import { mailThread } from '../../machines/beads/mailQueries.ts';
import { replyTitle } from '../../machines/beads/mailView.ts';
import { createModel, type StoredBead } from '../../machines/beads/model.ts';

t.test('a thread read for a rig leaves out the messages of no rig', async (t) => {
  const model = createModel('gc');
  const message = (id: string, ordinal: number, metadata?: Record<string, string>): void => {
    const bead: StoredBead = {
      id,
      title: id,
      status: 'open',
      issue_type: 'message',
      created_at: '2026-01-01T00:00:00Z',
      labels: ['thread:t1'],
      ...(metadata ? { metadata } : {}),
    };
    model.beads.set(id, { bead, ordinal });
    reindexBead(model.indexes, id, undefined, bead);
  };
  message('gc-1', 1);
  message('gc-2', 2, { 'gc.rig': 'east' });
  message('gc-3', 3, { 'gc.rig': 'west' });
  t.same(
    mailThread(model, 't1', 'east').map((m) => m.id),
    ['gc-2'],
  );
  t.same(
    mailThread(model, 't1').map((m) => m.id),
    ['gc-1', 'gc-2', 'gc-3'],
  );
});

t.test('a reply with no subject, to no title, with no body', async (t) => {
  t.equal(replyTitle(undefined, '', undefined), '(reply)');
  t.equal(replyTitle(undefined, '', ''), '(reply)');
  t.equal(replyTitle(undefined, '', 'first\nsecond'), 'first');
});
