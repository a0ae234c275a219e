import type { Message } from '../../schemas/mail.ts';
import { hasLabel, labelValue } from './beadShape.ts';
import { RIG_KEY, type StoredBead } from './model.ts';

/**
 * Mail is beads (upstream's default bead-backed provider): a message is a bead of type `message` with
 * the subject in `title`, the body in `description`, the recipient in `assignee` and the sender in
 * `from`; labels carry `read`, `thread:<id>`, `reply-to:<id>`, `priority:<n>` and `cc:<addr>`.
 * Archiving closes the bead.
 */
export const MESSAGE_TYPE = 'message';
export const READ_LABEL = 'read';
export const THREAD_PREFIX = 'thread:';
export const REPLY_TO_PREFIX = 'reply-to:';

export const isMessage = (bead: StoredBead | undefined): bead is StoredBead =>
  bead?.issue_type === MESSAGE_TYPE;

/** The wire message of a message bead. This is a pure function. */
export function toMessage(bead: StoredBead): Message {
  const message: Message = {
    id: bead.id,
    from: bead.from ?? '',
    to: bead.assignee ?? '',
    subject: bead.title,
    body: bead.description ?? '',
    created_at: bead.created_at,
    read: hasLabel(bead, READ_LABEL),
  };
  const thread = labelValue(bead, THREAD_PREFIX);
  if (thread) message.thread_id = thread;
  const replyTo = labelValue(bead, REPLY_TO_PREFIX);
  if (replyTo) message.reply_to = replyTo;
  const rig = bead.metadata?.[RIG_KEY];
  if (rig) message.rig = rig;
  const priority = Number(labelValue(bead, 'priority:'));
  if (Number.isInteger(priority)) message.priority = priority;
  const cc = bead.labels?.filter((l) => l.startsWith('cc:')).map((l) => l.slice(3));
  if (cc && cc.length > 0) message.cc = cc;
  return message;
}

/**
 * The title of a reply: its own subject, else `Re: <original>` (not doubled), else the first line of
 * its body, else `(reply)` (upstream's rule). This is a pure function.
 */
export function replyTitle(subject: string | undefined, original: string, body: string | undefined): string {
  if (subject) return subject;
  if (original) return /^\s*re:/i.test(original) ? original : `Re: ${original}`;
  const line = (body ?? '').split('\n', 1)[0] ?? '';
  if (line) return line.length > 80 ? `${line.slice(0, 77)}...` : line;
  return '(reply)';
}
