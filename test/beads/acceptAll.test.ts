/**
 * A decision of several events (machines/beads/decision.ts `acceptAll`, used by sling and orders): the
 * first event leads, the rest follow in order, and no events is a decision that changes nothing.
 */
import t from 'tap';
import { acceptAll } from '../../machines/beads/index.ts';
import type { EventDraft } from '../../schemas/event.ts';

// The decision only carries drafts through, so their payloads do not matter here.
const draft = (type: string) => ({ type, actor: 'a' }) as unknown as EventDraft;

t.test('several events: the first leads, the rest follow in order', async (t) => {
  t.same(acceptAll('r', [draft('bead.created'), draft('bead.updated'), draft('bead.closed')], [draft('n')]), {
    ok: true,
    decision: {
      event: draft('bead.created'),
      more: [draft('bead.updated'), draft('bead.closed')],
      notices: [draft('n')],
      result: 'r',
    },
  });
});

t.test('no events: nothing changes, the notices still go', async (t) => {
  t.same(acceptAll('r', []), { ok: true, decision: { notices: [], result: 'r' } });
  t.same(acceptAll('r', [], [draft('n')]), { ok: true, decision: { notices: [draft('n')], result: 'r' } });
});
