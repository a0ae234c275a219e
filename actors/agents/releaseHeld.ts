import type { BeadStore } from '../beads/index.ts';
import type { SessionRecord } from '../../machines/sessions/sessionRecord.ts';

/**
 * Gives back the work a closed pool session still held: its in-progress beads go back to open and
 * unassigned (their routing stays), so the pool's demand sees them again and another instance finishes
 * them. A surplus session is closed only when it holds nothing, but a worker can claim between that look
 * and the close; without this, the bead it claimed would stay in progress forever.
 */
export async function releaseHeld(store: BeadStore, s: Pick<SessionRecord, 'alias' | 'id' | 'sessionName'>) {
  const held = new Set<string>();
  for (const who of [s.alias, s.id, s.sessionName]) {
    if (!who) continue;
    for (const id of store.model.indexes.byAssignee.open.get(who) ?? []) {
      if (store.model.beads.get(id)?.bead.status === 'in_progress') held.add(id);
    }
  }
  for (const id of held) await store.update(id, { status: 'open', assignee: '' }, { actor: 'gc' });
}
