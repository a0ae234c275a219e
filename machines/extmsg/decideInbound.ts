import type { EventDraft } from '../../schemas/event.ts';
import type {
  ConversationTranscriptRecord,
  ExternalInboundMessage,
  GroupRouteDecision,
  InboundResult,
  SessionBindingRecord,
} from '../../schemas/extmsg.ts';
import type { ExtMsgInboundBody } from '../../schemas/extmsgBodies.ts';
import type { InboundRoute } from '../../schemas/extmsgEvents.ts';
import { accept, reject, type EventContext, type Outcome } from './decision.ts';
import { adapterKey, conversationKey, normalizeHandle, type ExtmsgModel } from './model.ts';
import { activeBindingFor, groupFor, participantOf, transcriptHead } from './queries.ts';

/** The zero binding an answer carries when no binding routed the message (upstream's Go zero value). */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

function zeroBinding(message: ExternalInboundMessage): SessionBindingRecord {
  return {
    ID: '',
    SchemaVersion: 0,
    Conversation: message.conversation,
    SessionID: '',
    SessionName: '',
    AgentName: '',
    Status: '',
    BoundAt: ZERO_TIME,
    ExpiresAt: null,
    BindingGeneration: 0,
    Metadata: {},
  };
}

function zeroEntry(message: ExternalInboundMessage): ConversationTranscriptRecord {
  return {
    ID: '',
    SchemaVersion: 0,
    Conversation: message.conversation,
    Sequence: 0,
    Kind: 'inbound',
    Provenance: 'live',
    ProviderMessageID: '',
    Actor: message.actor,
    Text: '',
    ExplicitTarget: '',
    ReplyToMessageID: '',
    Attachments: null,
    SourceSessionID: '',
    CreatedAt: ZERO_TIME,
    Metadata: {},
  };
}

/** The answer stored with an inbound entry, as the route answers it. This is a pure function. */
export function inboundResult(entry: ConversationTranscriptRecord, route: InboundRoute): InboundResult {
  return {
    Message: route.message,
    Binding: route.binding ?? zeroBinding(route.message),
    GroupRoute: route.group_route,
    TranscriptEntry: entry,
    TargetSessionID: route.target_session_id,
    TargetAgentName: route.target_agent_name,
  };
}

/** Routing precedence: the active binding, then the group (explicit target, last addressed, default). */
function route(
  model: ExtmsgModel,
  message: ExternalInboundMessage,
): { route: InboundRoute; lastAddressed?: string } {
  const binding = activeBindingFor(model, message.conversation);
  const none: GroupRouteDecision = { Match: '', TargetSessionID: '', UpdateCursor: false };
  if (binding)
    return {
      route: {
        message,
        binding,
        group_route: none,
        target_session_id: binding.SessionID,
        target_agent_name: binding.AgentName,
      },
    };
  const group = groupFor(model, message.conversation);
  const routed = (match: string, sessionId: string, lastAddressed?: string) => ({
    route: {
      message,
      binding: null,
      group_route: { Match: match, TargetSessionID: sessionId, UpdateCursor: lastAddressed !== undefined },
      target_session_id: sessionId,
      target_agent_name: '',
    },
    ...(lastAddressed !== undefined ? { lastAddressed } : {}),
  });
  if (!group) return routed('no_match', '');
  const explicit = normalizeHandle(message.explicit_target ?? '');
  const target = explicit ? participantOf(model, group.ID, explicit) : undefined;
  if (target) return routed('explicit_target', target.SessionID, target.Handle);
  const last = group.LastAddressedHandle
    ? participantOf(model, group.ID, group.LastAddressedHandle)
    : undefined;
  if (last) return routed('last_addressed', last.SessionID);
  const fallback = group.DefaultHandle ? participantOf(model, group.ID, group.DefaultHandle) : undefined;
  if (fallback) return routed('default', fallback.SessionID);
  return routed('no_match', '');
}

/**
 * Takes in a message an adapter normalised. Its adapter must be registered (404). A message whose
 * provider message id the conversation already holds is answered with the first result and records
 * nothing. Otherwise it is routed (binding → explicit target → last addressed → default) and, when it
 * found a target, appended to the conversation's transcript with the notice `extmsg.inbound` (and the
 * group's last-addressed handle moved on an explicit target); without one it is answered with an empty
 * target and nothing is stored. A raw payload needs an in-process adapter, which this supervisor has
 * none of (422). This is a pure function.
 */
export function decideInbound(
  model: ExtmsgModel,
  body: ExtMsgInboundBody,
  ctx: EventContext,
): Outcome<InboundResult> {
  const message = body.message;
  if (!message)
    return reject(
      'unprocessable',
      'raw payloads need an in-process adapter; HTTP adapters post a normalised message',
      'body.message',
    );
  const c = message.conversation;
  if (!model.adapters.has(adapterKey(c.provider, c.account_id)))
    return reject('not_found', `adapter ${c.provider}/${c.account_id} not registered`);
  if (message.provider_message_id === '')
    return reject('unprocessable', 'provider_message_id is empty', 'body.message.provider_message_id');
  const first = model.transcripts.get(conversationKey(c))?.inbound.get(message.provider_message_id);
  if (first) return accept(inboundResult(first.entry, first.route));
  const decided = route(model, message);
  if (decided.route.target_session_id === '' && decided.route.target_agent_name === '')
    return accept(inboundResult(zeroEntry(message), decided.route));
  const entry: ConversationTranscriptRecord = {
    ID: `xt-${model.nextNumber}`,
    SchemaVersion: 1,
    Conversation: c,
    Sequence: transcriptHead(model, c) + 1,
    Kind: 'inbound',
    Provenance: 'live',
    ProviderMessageID: message.provider_message_id,
    Actor: message.actor,
    Text: message.text.trim(),
    ExplicitTarget: message.explicit_target ?? '',
    ReplyToMessageID: message.reply_to_message_id ?? '',
    Attachments: message.attachments ?? null,
    SourceSessionID: '',
    CreatedAt: ctx.now,
    Metadata: {},
  };
  const records: EventDraft[] = [
    {
      type: 'extmsg.transcript_appended',
      actor: ctx.actor,
      subject: entry.ID,
      ts: ctx.now,
      payload: { entry, inbound: decided.route },
    },
  ];
  const group = groupFor(model, c);
  if (group && decided.lastAddressed !== undefined && group.LastAddressedHandle !== decided.lastAddressed) {
    const moved = { ...group, LastAddressedHandle: decided.lastAddressed };
    records.push({
      type: 'extmsg.group_recorded',
      actor: ctx.actor,
      subject: group.ID,
      ts: ctx.now,
      payload: { group: moved },
    });
  }
  records.push({
    type: 'extmsg.inbound',
    actor: ctx.actor,
    subject: entry.ID,
    ts: ctx.now,
    payload: {
      actor: message.actor.id,
      conversation_id: c.conversation_id,
      provider: c.provider,
      target_session: decided.route.target_session_id,
      ...(decided.route.target_agent_name ? { target_agent: decided.route.target_agent_name } : {}),
    },
  });
  return accept(inboundResult(entry, decided.route), records);
}
