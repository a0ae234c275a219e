import type { EventDraft } from '../../schemas/event.ts';
import type {
  ConversationTranscriptRecord,
  DeliveryContextRecord,
  PublishReceipt,
} from '../../schemas/extmsg.ts';
import type { ExtMsgOutboundBody } from '../../schemas/extmsgBodies.ts';
import { accept, reject, type EventContext, type Outcome } from './decision.ts';
import { ZERO_TIME } from './decideInbound.ts';
import {
  adapterKey,
  contextKey,
  conversationKey,
  conversationText,
  type DeliveryState,
  type ExtmsgModel,
} from './model.ts';
import { activeBindingFor, isMember, transcriptHead } from './queries.ts';

/** The metadata key naming the delivery of an outbound entry or receipt. */
export const DELIVERY_ID_KEY = 'gc.delivery_id';

/** What an outbound command decided: queued for delivery, or refused by an adapter without a callback. */
export type OutboundDecision =
  | { kind: 'queued'; deliveryId: string; entry: ConversationTranscriptRecord }
  | { kind: 'repeat'; deliveryId: string }
  | { kind: 'unsupported'; receipt: PublishReceipt };

/**
 * A session's message to a conversation, owed to the conversation's adapter. The conversation is
 * required (422); its adapter must be registered (404); the session must hold the conversation's active
 * binding or be a participant of its group (422, as upstream's unbound or foreign-owned outbound). An
 * adapter without a callback URL cannot deliver: the answer is a not-delivered receipt (`unsupported`) and
 * nothing is recorded, as upstream. Otherwise the outbound transcript entry and the delivery are recorded
 * in one batch; the supervisor delivers it (see the extmsg dispatcher) until the adapter acknowledges or
 * the delivery dies. An `idempotency_key` already used answers its delivery (`repeat`) and records nothing,
 * so nothing is delivered again; used for another message, it is a 422. This is a pure function.
 */
export function decideOutbound(
  model: ExtmsgModel,
  body: ExtMsgOutboundBody,
  ctx: EventContext,
): Outcome<OutboundDecision> {
  const c = body.conversation;
  if (!c) return reject('unprocessable', 'conversation is required', 'body.conversation');
  const earlier = body.idempotency_key ? model.deliveryByKey.get(body.idempotency_key) : undefined;
  const first = earlier === undefined ? undefined : model.deliveries.get(earlier)?.queued;
  if (first) {
    const same =
      first.session_id === body.session_id &&
      first.request.Text === (body.text ?? '') &&
      first.request.ReplyToMessageID === (body.reply_to_message_id ?? '') &&
      conversationKey(first.request.Conversation) === conversationKey(c);
    if (!same)
      return reject(
        'unprocessable',
        `idempotency_mismatch: idempotency_key ${body.idempotency_key} was used for another message`,
        'body.idempotency_key',
      );
    return accept({ kind: 'repeat', deliveryId: first.id });
  }
  const adapter = model.adapters.get(adapterKey(c.provider, c.account_id));
  if (!adapter) return reject('not_found', `adapter ${c.provider}/${c.account_id} not registered`);
  const binding = activeBindingFor(model, c);
  if (binding && binding.SessionID !== body.session_id)
    return reject(
      'unprocessable',
      `conversation ${conversationText(c)} is bound to ${binding.SessionID || `agent ${binding.AgentName}`}, not ${body.session_id}`,
    );
  if (!binding && !isMember(model, c, body.session_id))
    return reject(
      'unprocessable',
      `session ${body.session_id} has no active binding to conversation ${conversationText(c)}`,
    );
  const text = body.text ?? '';
  const max = adapter.capabilities?.MaxMessageLength ?? 0;
  if (max > 0 && text.length > max)
    return reject('unprocessable', `text is longer than the adapter's ${max} characters`, 'body.text');
  if (adapter.callback_url === '')
    return accept({
      kind: 'unsupported',
      receipt: {
        MessageID: '',
        Conversation: c,
        Delivered: false,
        FailureKind: 'unsupported',
        RetryAfter: 0,
        Metadata: {},
      },
    });
  const deliveryId = `xd-${model.nextNumber}`;
  const entry: ConversationTranscriptRecord = {
    ID: `xt-${model.nextNumber + 1}`,
    SchemaVersion: 1,
    Conversation: c,
    Sequence: transcriptHead(model, c) + 1,
    Kind: 'outbound',
    Provenance: 'live',
    ProviderMessageID: '',
    Actor: { id: body.session_id, display_name: body.session_id, is_bot: true },
    Text: text,
    ExplicitTarget: '',
    ReplyToMessageID: body.reply_to_message_id ?? '',
    Attachments: null,
    SourceSessionID: body.session_id,
    CreatedAt: ctx.now,
    Metadata: { [DELIVERY_ID_KEY]: deliveryId },
  };
  const records: EventDraft[] = [
    {
      type: 'extmsg.transcript_appended',
      actor: ctx.actor,
      subject: entry.ID,
      ts: ctx.now,
      payload: { entry },
    },
    {
      type: 'extmsg.delivery_queued',
      actor: ctx.actor,
      subject: deliveryId,
      ts: ctx.now,
      payload: {
        id: deliveryId,
        provider: c.provider,
        account_id: c.account_id,
        session_id: body.session_id,
        entry_id: entry.ID,
        binding_generation: binding?.BindingGeneration ?? 0,
        request: {
          Conversation: c,
          Text: text,
          ReplyToMessageID: body.reply_to_message_id ?? '',
          IdempotencyKey: body.idempotency_key || deliveryId,
          Metadata: { [DELIVERY_ID_KEY]: deliveryId },
        },
      },
    },
  ];
  return accept({ kind: 'queued', deliveryId, entry }, records);
}

/** The delivery context a session has in a conversation before its first delivery. This is a pure function. */
export function emptyContext(d: DeliveryState): DeliveryContextRecord {
  const q = d.queued;
  return {
    ID: '',
    SchemaVersion: 1,
    SessionID: q.session_id,
    Conversation: q.request.Conversation,
    BindingGeneration: q.binding_generation,
    LastPublishedAt: ZERO_TIME,
    LastMessageID: '',
    SourceSessionID: q.session_id,
    Metadata: {},
  };
}

/**
 * The adapter acknowledged delivery `id` at attempt `attempt`: `extmsg.delivery_acked` (with the session's
 * updated delivery context) and upstream's notice `extmsg.outbound`. A delivery no longer pending (acked
 * or dead already) records nothing. Unknown delivery: 404. This is a pure function.
 */
export function decideDeliveryAcked(
  model: ExtmsgModel,
  command: { id: string; attempt: number; receipt: PublishReceipt },
  ctx: EventContext,
): Outcome<DeliveryContextRecord> {
  const d = model.deliveries.get(command.id);
  if (!d) return reject('not_found', `delivery ${command.id} not found`);
  const q = d.queued;
  const key = contextKey(q.session_id, q.request.Conversation);
  if (d.status !== 'pending') return accept(model.contexts.get(key) ?? emptyContext(d));
  const context: DeliveryContextRecord = {
    ...emptyContext(d),
    ID: model.contexts.get(key)?.ID ?? `xc-${model.nextNumber}`,
    LastPublishedAt: ctx.now,
    LastMessageID: command.receipt.MessageID,
  };
  const c = q.request.Conversation;
  return accept(context, [
    {
      type: 'extmsg.delivery_acked',
      actor: ctx.actor,
      subject: q.id,
      ts: ctx.now,
      payload: { id: q.id, attempt: command.attempt, receipt: command.receipt, context },
    },
    {
      type: 'extmsg.outbound',
      actor: ctx.actor,
      subject: q.entry_id,
      ts: ctx.now,
      payload: {
        conversation_id: c.conversation_id,
        message_id: command.receipt.MessageID,
        provider: c.provider,
        session: q.session_id,
      },
    },
  ]);
}

/**
 * Attempt `attempt` of delivery `id` failed. With `retryAt` the delivery stays pending and the failure is
 * recorded (`extmsg.delivery_failed`); without it, it is given up: the dead letter `extmsg.delivery_dead`.
 * A delivery no longer pending records nothing. Unknown delivery: 404. This is a pure function.
 */
export function decideDeliveryFailed(
  model: ExtmsgModel,
  command: { id: string; attempt: number; kind: string; error: string; retryAt?: string },
  ctx: EventContext,
): Outcome<DeliveryState['status']> {
  const d = model.deliveries.get(command.id);
  if (!d) return reject('not_found', `delivery ${command.id} not found`);
  if (d.status !== 'pending') return accept(d.status);
  const base = { actor: ctx.actor, subject: command.id, ts: ctx.now };
  if (command.retryAt === undefined)
    return accept('dead', [
      {
        ...base,
        type: 'extmsg.delivery_dead',
        payload: {
          id: command.id,
          attempts: command.attempt,
          failure_kind: command.kind,
          error: command.error,
        },
      },
    ]);
  return accept('pending', [
    {
      ...base,
      type: 'extmsg.delivery_failed',
      payload: {
        id: command.id,
        attempt: command.attempt,
        failure_kind: command.kind,
        error: command.error,
        retry_at: command.retryAt,
      },
    },
  ]);
}
