import type { EventDraft } from '../../schemas/event.ts';
import type { Message } from '../../schemas/mail.ts';
import type { StoredBead } from './model.ts';

/**
 * The event types this family writes. `bead.*` events carry the full bead after the change and are
 * the only ones the model folds; `mail.*`, `convoy.*` and `bead.claim_rejected` are notices that
 * follow them for subscribers (as upstream, where the bead store and the mail/convoy handlers both
 * record events).
 */
export const BeadEventType = {
  Created: 'bead.created',
  Updated: 'bead.updated',
  Closed: 'bead.closed',
  Deleted: 'bead.deleted',
  ClaimRejected: 'bead.claim_rejected',
} as const;

export const MailEventType = {
  Sent: 'mail.sent',
  Replied: 'mail.replied',
  MarkedRead: 'mail.marked_read',
  MarkedUnread: 'mail.marked_unread',
  Archived: 'mail.archived',
  Deleted: 'mail.deleted',
} as const;

export const ConvoyEventType = {
  Created: 'convoy.created',
  Closed: 'convoy.closed',
} as const;

/** The types whose payload is `{bead}` and which change the model. */
export type BeadStateEventType = 'bead.created' | 'bead.updated' | 'bead.closed' | 'bead.deleted';

const STATE_TYPES: ReadonlySet<string> = new Set<BeadStateEventType>([
  'bead.created',
  'bead.updated',
  'bead.closed',
  'bead.deleted',
]);

/** True for the event types the model folds. This is a pure function. */
export const isBeadStateEvent = (type: string): type is BeadStateEventType => STATE_TYPES.has(type);

/** Who and when, for every event a command writes. */
export interface EventContext {
  actor: string;
  /** RFC 3339 instant: the event's `ts` and the bead's `updated_at`. */
  now: string;
}

/** Upstream omits an empty `message`; so do we. */
const withMessage = (message: string | undefined) => (message ? { message } : {});

/**
 * A `bead.*` draft for `bead`. Its `message` is the bead's title, as upstream records it: activity views
 * and `gc events` show it. This is a pure function.
 */
export function beadEvent(
  type: BeadStateEventType,
  bead: StoredBead,
  ctx: EventContext,
): EventDraft<BeadStateEventType> {
  return {
    type,
    actor: ctx.actor,
    subject: bead.id,
    ...withMessage(bead.title),
    ts: ctx.now,
    payload: { bead },
  };
}

export type MailEventType = (typeof MailEventType)[keyof typeof MailEventType];
export type ConvoyEventType = (typeof ConvoyEventType)[keyof typeof ConvoyEventType];

/** The mail notices whose `message` names the recipient (upstream's `gc mail send` and `reply`). */
const ADDRESSED: ReadonlySet<MailEventType> = new Set<MailEventType>([
  MailEventType.Sent,
  MailEventType.Replied,
]);

/** A `mail.*` notice. This is a pure function. */
export function mailEvent(
  type: MailEventType,
  message: Message,
  ctx: EventContext,
): EventDraft<MailEventType> {
  return {
    type,
    actor: ctx.actor,
    subject: message.id,
    ...withMessage(ADDRESSED.has(type) ? message.to : undefined),
    ts: ctx.now,
    payload: { rig: message.rig ?? '', message },
  };
}

/** A `convoy.*` notice (upstream's NoPayload: `{}`), with an optional `message`. This is a pure function. */
export function convoyEvent(
  type: ConvoyEventType,
  convoyId: string,
  ctx: EventContext,
  message?: string,
): EventDraft<ConvoyEventType> {
  return { type, actor: ctx.actor, subject: convoyId, ...withMessage(message), ts: ctx.now, payload: {} };
}
