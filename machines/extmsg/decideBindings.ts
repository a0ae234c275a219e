import type { EventDraft } from '../../schemas/event.ts';
import type { SessionBindingRecord } from '../../schemas/extmsg.ts';
import type { ExtMsgBindBody, ExtMsgUnbindBody } from '../../schemas/extmsgBodies.ts';
import { accept, reject, type EventContext, type Outcome } from './decision.ts';
import { conversationKey, conversationText, type ExtmsgModel } from './model.ts';
import { activeBindingFor } from './queries.ts';

const bindingEvent = (binding: SessionBindingRecord, ctx: EventContext): EventDraft => ({
  type: 'extmsg.binding_recorded',
  actor: ctx.actor,
  subject: binding.ID,
  ts: ctx.now,
  payload: { binding },
});

/**
 * Binds a conversation to a session or an agent identity (exactly one of them, 400 otherwise).
 * The conversation's active binding to someone else is a 409; to the same owner it is refreshed (its
 * metadata replaced). A new binding gets the next generation of its conversation. Records the binding and
 * the notice `extmsg.bound`. This is a pure function.
 */
export function decideBind(
  model: ExtmsgModel,
  body: ExtMsgBindBody,
  ctx: EventContext,
): Outcome<SessionBindingRecord> {
  const session = body.session_id?.trim() ?? '';
  const agent = body.agent_name?.trim() ?? '';
  if (!body.conversation) return reject('invalid', 'conversation is required', 'body.conversation');
  if ((session === '') === (agent === ''))
    return reject('invalid', 'exactly one of session_id and agent_name is required', 'body.session_id');
  const conversation = body.conversation;
  const active = activeBindingFor(model, conversation);
  if (active && (active.SessionID !== session || active.AgentName !== agent))
    return reject(
      'conflict',
      `conversation ${conversationText(conversation)} is bound to ${active.SessionID || `agent ${active.AgentName}`}`,
    );
  const binding: SessionBindingRecord = active
    ? { ...active, Metadata: body.metadata ?? active.Metadata }
    : {
        ID: `xb-${model.nextNumber}`,
        SchemaVersion: 1,
        Conversation: conversation,
        SessionID: session,
        SessionName: '',
        AgentName: agent,
        Status: 'active',
        BoundAt: ctx.now,
        ExpiresAt: null,
        BindingGeneration: (model.generations.get(conversationKey(conversation)) ?? 0) + 1,
        Metadata: body.metadata ?? {},
      };
  const notice: EventDraft = {
    type: 'extmsg.bound',
    actor: ctx.actor,
    subject: binding.ID,
    ts: ctx.now,
    payload: {
      conversation_id: conversation.conversation_id,
      provider: conversation.provider,
      session_id: session,
      ...(agent ? { agent_name: agent } : {}),
    },
  };
  return accept(binding, [bindingEvent(binding, ctx), notice]);
}

/**
 * Ends the active bindings of a session or agent (one of them required, 400), optionally only the one of
 * `conversation`. Records each ended binding and one `extmsg.unbound` notice with the count; nothing when
 * none matched. This is a pure function.
 */
export function decideUnbind(
  model: ExtmsgModel,
  body: ExtMsgUnbindBody,
  ctx: EventContext,
): Outcome<SessionBindingRecord[]> {
  const session = body.session_id?.trim() ?? '';
  const agent = body.agent_name?.trim() ?? '';
  if (session === '' && agent === '')
    return reject('invalid', 'session_id or agent_name is required', 'body.session_id');
  const only = body.conversation ? conversationKey(body.conversation) : undefined;
  const ended: SessionBindingRecord[] = [];
  for (const [key, id] of model.activeBinding) {
    if (only !== undefined && key !== only) continue;
    const b = model.bindings.get(id)!;
    if ((session !== '' && b.SessionID !== session) || (agent !== '' && b.AgentName !== agent)) continue;
    ended.push({ ...b, Status: 'ended' });
  }
  if (ended.length === 0) return accept([]);
  const records = ended.map((b) => bindingEvent(b, ctx));
  records.push({
    type: 'extmsg.unbound',
    actor: ctx.actor,
    subject: session || agent,
    ts: ctx.now,
    payload: { count: ended.length, session_id: session },
  });
  return accept(ended, records);
}
