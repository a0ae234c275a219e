import type { Message } from '../../schemas/mail.ts';
import { hasLabel, labelValue } from './beadShape.ts';
import { RIG_KEY, type BeadEntry, type BeadModel, type StoredBead } from './model.ts';
import { pageOf, smallest, type Page } from './paging.ts';
import { isMessage, MESSAGE_TYPE, READ_LABEL, THREAD_PREFIX, toMessage } from './mailView.ts';

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
    bead.issue_type === MESSAGE_TYPE &&
    bead.status !== 'closed' &&
    (!filter.agent || bead.assignee === filter.agent) &&
    (!filter.rig || bead.metadata?.[RIG_KEY] === filter.rig)
  );
}

const NONE: ReadonlySet<string> = new Set();

/** The smallest index entry holding every message a mailbox filter can match. */
function mailbox(model: Readonly<BeadModel>, filter: MailFilter): ReadonlySet<string> {
  const { byType, byAssignee, byRig } = model.indexes;
  return (
    smallest([
      byType.open.get(MESSAGE_TYPE) ?? NONE,
      filter.agent ? (byAssignee.open.get(filter.agent) ?? NONE) : undefined,
      filter.rig ? (byRig.open.get(filter.rig) ?? NONE) : undefined,
    ]) ?? NONE
  );
}

/** One page of a mailbox, newest first. This is a pure function. */
export function listMail(
  model: Readonly<BeadModel>,
  filter: MailFilter,
  size: number,
  before?: number,
): Page<Message> {
  const unreadOnly = filter.status !== 'all';
  return pageOf(model, {
    candidates: mailbox(model, filter),
    matches: (b) => inMailbox(b, filter) && !(unreadOnly && hasLabel(b, READ_LABEL)),
    map: (e) => toMessage(e.bead),
    size,
    before,
  });
}

/** Total and unread open messages of a mailbox. This is a pure function. */
export function countMail(model: Readonly<BeadModel>, filter: MailFilter): { total: number; unread: number } {
  let total = 0;
  let unread = 0;
  for (const id of mailbox(model, filter)) {
    const bead = model.beads.get(id)?.bead;
    if (!bead || !inMailbox(bead, filter)) continue;
    total++;
    if (!hasLabel(bead, READ_LABEL)) unread++;
  }
  return { total, unread };
}

/**
 * Every message of a thread, archived ones included, oldest first. `id` is a thread id or the id of
 * any message in it. This is a pure function.
 */
export function mailThread(model: Readonly<BeadModel>, id: string, rig?: string): Message[] {
  const named = model.beads.get(id)?.bead;
  const thread = (isMessage(named) && labelValue(named, THREAD_PREFIX)) || id;
  const out: BeadEntry[] = [];
  const { open, closed } = model.indexes.byLabel;
  const label = THREAD_PREFIX + thread;
  for (const member of [...(open.get(label) ?? []), ...(closed.get(label) ?? [])]) {
    const entry = model.beads.get(member);
    const b = entry?.bead;
    if (entry && b?.issue_type === MESSAGE_TYPE && (!rig || b.metadata?.[RIG_KEY] === rig)) out.push(entry);
  }
  return out.sort((a, b) => a.ordinal - b.ordinal).map((e) => toMessage(e.bead));
}
