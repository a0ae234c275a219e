import type { Message } from '../../schemas/mail.ts';
import { hasLabel, labelValue } from './beadShape.ts';
import { RIG_KEY, type BeadEntry, type BeadModel, type StoredBead } from './model.ts';
import { pageNewestFirst, type Page } from './paging.ts';
import { isMessage, READ_LABEL, THREAD_PREFIX, toMessage } from './mailView.ts';

/** Mailbox filters: recipient, rig, and whether read messages count. */
export interface MailFilter {
  agent?: string;
  rig?: string;
  /** `unread` (default) or `all`. */
  status?: 'unread' | 'all';
}

/** Open (not archived) messages for the agent and rig given. This is a pure function. */
function inMailbox(bead: StoredBead, filter: MailFilter): boolean {
  return (
    bead.issue_type === 'message' &&
    bead.status !== 'closed' &&
    (!filter.agent || bead.assignee === filter.agent) &&
    (!filter.rig || bead.metadata?.[RIG_KEY] === filter.rig)
  );
}

/** One page of a mailbox, newest first. This is a pure function. */
export function listMail(model: BeadModel, filter: MailFilter, size: number, before?: number): Page<Message> {
  const unreadOnly = filter.status !== 'all';
  return pageNewestFirst(
    model.beads.values(),
    (e) => inMailbox(e.bead, filter) && !(unreadOnly && hasLabel(e.bead, READ_LABEL)),
    (e) => toMessage(e.bead),
    size,
    before,
  );
}

/** Total and unread open messages of a mailbox. This is a pure function. */
export function countMail(model: BeadModel, filter: MailFilter): { total: number; unread: number } {
  let total = 0;
  let unread = 0;
  for (const { bead } of model.beads.values()) {
    if (!inMailbox(bead, filter)) continue;
    total++;
    if (!hasLabel(bead, READ_LABEL)) unread++;
  }
  return { total, unread };
}

/**
 * Every message of a thread, archived ones included, oldest first. `id` is a thread id or the id of
 * any message in it. This is a pure function.
 */
export function mailThread(model: BeadModel, id: string, rig?: string): Message[] {
  const named = model.beads.get(id)?.bead;
  const thread = (isMessage(named) && labelValue(named, THREAD_PREFIX)) || id;
  const label = THREAD_PREFIX + thread;
  const out: BeadEntry[] = [];
  for (const entry of model.beads.values()) {
    const b = entry.bead;
    if (b.issue_type === 'message' && hasLabel(b, label) && (!rig || b.metadata?.[RIG_KEY] === rig))
      out.push(entry);
  }
  return out.map((e) => toMessage(e.bead));
}
