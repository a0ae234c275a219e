import type { EventDraft } from '../../schemas/event.ts';
import type { BeadCommand, CommandResults, IdempotencyClaim } from './commands.ts';
import { accept, notFound, reject, type Outcome } from './decision.ts';
import { beadEvent, BeadEventType, mailEvent, MailEventType, type EventContext } from './events.ts';
import { formatId } from './ids.ts';
import { IDEMPOTENCY_KEY, REQUEST_HASH_KEY, RIG_KEY, type BeadModel, type StoredBead } from './model.ts';
import { compactBead, labelValue, uniqueLabels } from './beadShape.ts';
import {
  isMessage,
  MESSAGE_TYPE,
  READ_LABEL,
  REPLY_TO_PREFIX,
  replyTitle,
  THREAD_PREFIX,
  toMessage,
} from './mailView.ts';

type Cmd<T extends BeadCommand['type']> = Extract<BeadCommand, { type: T }>;
type Out<T extends keyof CommandResults> = Outcome<CommandResults[T]>;

interface NewMessage {
  to: string;
  from: string;
  subject: string;
  body: string;
  thread: (id: string) => string;
  replyTo?: string;
  rig?: string;
  idempotency?: IdempotencyClaim;
}

/** A keyed send already recorded: its original message, or a mismatch. */
function replay(model: BeadModel, claim: IdempotencyClaim | undefined): Out<'SendMail'> | undefined {
  const record = claim && model.idempotency.get(claim.key);
  if (!claim || !record) return undefined;
  return record.hash === claim.hash
    ? accept({ message: toMessage(record.bead), replayed: true })
    : reject('idempotency_mismatch', 'Idempotency-Key reused with different request body');
}

function newMessage(
  model: BeadModel,
  m: NewMessage,
  ctx: EventContext,
  notice: MailEventType,
): Out<'SendMail'> {
  const id = formatId(model.prefix, model.nextNumber);
  const metadata: Record<string, string> = {};
  if (m.rig) metadata[RIG_KEY] = m.rig;
  if (m.idempotency) {
    metadata[IDEMPOTENCY_KEY] = m.idempotency.key;
    metadata[REQUEST_HASH_KEY] = m.idempotency.hash;
  }
  const labels = [THREAD_PREFIX + m.thread(id)];
  if (m.replyTo) labels.push(REPLY_TO_PREFIX + m.replyTo);
  const bead = compactBead({
    id,
    title: m.subject,
    status: 'open',
    issue_type: MESSAGE_TYPE,
    created_at: ctx.now,
    updated_at: ctx.now,
    description: m.body,
    assignee: m.to,
    labels,
    metadata,
    from: m.from,
    ephemeral: true,
  });
  const message = toMessage(bead);
  const sender = { ...ctx, actor: m.from || ctx.actor };
  return accept({ message, replayed: false }, beadEvent(BeadEventType.Created, bead, sender), [
    mailEvent(notice, message, sender),
  ]);
}

/** Sends a message (a new message bead on a new thread). This is a pure function. */
export function decideSend(model: BeadModel, cmd: Cmd<'SendMail'>, ctx: EventContext): Out<'SendMail'> {
  const replayed = replay(model, cmd.idempotency);
  if (replayed) return replayed;
  const { to, subject, body = '', from = '', rig } = cmd.input;
  return newMessage(
    model,
    { to, from, subject, body, rig, thread: (id) => `thread-${id}`, idempotency: cmd.idempotency },
    ctx,
    MailEventType.Sent,
  );
}

/**
 * Replies to a message: addressed to its sender, in its thread, `reply_to` it, in its rig.
 * This is a pure function.
 */
export function decideReply(model: BeadModel, cmd: Cmd<'ReplyMail'>, ctx: EventContext): Out<'ReplyMail'> {
  const replayed = replay(model, cmd.idempotency);
  if (replayed) return replayed;
  const original = model.beads.get(cmd.id)?.bead;
  if (!isMessage(original)) return notFound('message', cmd.id);
  if (!original.from) return reject('invalid', `message ${cmd.id} has no sender to reply to`);
  const thread = labelValue(original, THREAD_PREFIX) ?? `thread-${original.id}`;
  const { subject, body = '', from = '' } = cmd.input;
  return newMessage(
    model,
    {
      to: original.from,
      from,
      subject: replyTitle(subject, original.title, body),
      body,
      thread: () => thread,
      replyTo: original.id,
      rig: original.metadata?.[RIG_KEY],
      idempotency: cmd.idempotency,
    },
    ctx,
    MailEventType.Replied,
  );
}

function messageChange(
  model: BeadModel,
  id: string,
  ctx: EventContext,
  change: (
    bead: StoredBead,
  ) => { bead: StoredBead; type: 'bead.updated' | 'bead.closed' | 'bead.deleted' } | undefined,
  notice: MailEventType,
): Outcome<CommandResults['MarkMailRead']> {
  const bead = model.beads.get(id)?.bead;
  if (!isMessage(bead)) return notFound('message', id);
  const next = change(bead);
  if (!next) return accept(toMessage(bead));
  const message = toMessage(next.bead);
  const events: EventDraft[] = [mailEvent(notice, message, ctx)];
  return accept(message, beadEvent(next.type, next.bead, ctx), events);
}

const withLabels = (bead: StoredBead, labels: string[], now: string) =>
  compactBead({ ...bead, labels, updated_at: now });

/** Marks a message read (the `read` label); already read changes nothing. This is a pure function. */
export const decideMarkRead = (model: BeadModel, cmd: Cmd<'MarkMailRead'>, ctx: EventContext) =>
  messageChange(
    model,
    cmd.id,
    ctx,
    (b) =>
      b.labels?.includes(READ_LABEL)
        ? undefined
        : {
            bead: withLabels(b, uniqueLabels([...(b.labels ?? []), READ_LABEL]), ctx.now),
            type: 'bead.updated',
          },
    MailEventType.MarkedRead,
  );

/** Marks a message unread; already unread changes nothing. This is a pure function. */
export const decideMarkUnread = (model: BeadModel, cmd: Cmd<'MarkMailUnread'>, ctx: EventContext) =>
  messageChange(
    model,
    cmd.id,
    ctx,
    (b) =>
      b.labels?.includes(READ_LABEL)
        ? {
            bead: withLabels(
              b,
              b.labels.filter((l) => l !== READ_LABEL),
              ctx.now,
            ),
            type: 'bead.updated',
          }
        : undefined,
    MailEventType.MarkedUnread,
  );

/** Archives a message (closes its bead); archiving twice changes nothing. This is a pure function. */
export const decideArchive = (model: BeadModel, cmd: Cmd<'ArchiveMail'>, ctx: EventContext) =>
  messageChange(
    model,
    cmd.id,
    ctx,
    (b) =>
      b.status === 'closed'
        ? undefined
        : { bead: compactBead({ ...b, status: 'closed', updated_at: ctx.now }), type: 'bead.closed' },
    MailEventType.Archived,
  );

/** Deletes a message (its bead). This is a pure function. */
export const decideDeleteMail = (model: BeadModel, cmd: Cmd<'DeleteMail'>, ctx: EventContext) =>
  messageChange(model, cmd.id, ctx, (b) => ({ bead: b, type: 'bead.deleted' }), MailEventType.Deleted);
