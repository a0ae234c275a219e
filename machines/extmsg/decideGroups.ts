import type { ConversationGroupParticipant, ConversationGroupRecord } from '../../schemas/extmsg.ts';
import type {
  ExtMsgGroupEnsureBody,
  ExtMsgParticipantRemoveBody,
  ExtMsgParticipantUpsertBody,
} from '../../schemas/extmsgBodies.ts';
import { accept, reject, type EventContext, type Outcome } from './decision.ts';
import { conversationKey, normalizeHandle, type ExtmsgModel } from './model.ts';

/**
 * Ensures the group rooted at `root_conversation` (required, 422): an existing one is answered unchanged;
 * a new one (mode default `launcher`, fan-out off) is recorded with the notice `extmsg.group_created`.
 * This is a pure function.
 */
export function decideEnsureGroup(
  model: ExtmsgModel,
  body: ExtMsgGroupEnsureBody,
  ctx: EventContext,
): Outcome<ConversationGroupRecord> {
  const root = body.root_conversation;
  if (!root) return reject('unprocessable', 'root_conversation is required', 'body.root_conversation');
  const existing = model.groupByRoot.get(conversationKey(root));
  if (existing !== undefined) return accept(model.groups.get(existing)!);
  const group: ConversationGroupRecord = {
    ID: `xg-${model.nextNumber}`,
    SchemaVersion: 1,
    RootConversation: root,
    Mode: body.mode?.trim() || 'launcher',
    DefaultHandle: normalizeHandle(body.default_handle ?? ''),
    LastAddressedHandle: '',
    FanoutPolicy: {
      Enabled: false,
      AllowUntargetedPublication: false,
      MaxPeerTriggeredPublishes: 0,
      MaxTotalPeerDeliveries: 0,
    },
    Metadata: body.metadata ?? {},
  };
  return accept(group, [
    { type: 'extmsg.group_recorded', actor: ctx.actor, subject: group.ID, ts: ctx.now, payload: { group } },
    {
      type: 'extmsg.group_created',
      actor: ctx.actor,
      subject: group.ID,
      ts: ctx.now,
      payload: { conversation_id: root.conversation_id, mode: group.Mode, provider: root.provider },
    },
  ]);
}

/**
 * Adds a participant to a group, or replaces the one with its handle (keeping its id). Unknown group: 404;
 * a handle empty once trimmed: 422. This is a pure function.
 */
export function decideUpsertParticipant(
  model: ExtmsgModel,
  body: ExtMsgParticipantUpsertBody,
  ctx: EventContext,
): Outcome<ConversationGroupParticipant> {
  if (!model.groups.has(body.group_id)) return reject('not_found', `group ${body.group_id} not found`);
  const handle = normalizeHandle(body.handle);
  if (handle === '') return reject('unprocessable', 'handle is empty', 'body.handle');
  const previous = model.participants.get(body.group_id)?.get(handle);
  const participant: ConversationGroupParticipant = {
    ID: previous?.ID ?? `xp-${model.nextNumber}`,
    GroupID: body.group_id,
    Handle: handle,
    SessionID: body.session_id,
    SessionName: '',
    Public: body.public ?? false,
    Metadata: body.metadata ?? {},
  };
  return accept(participant, [
    {
      type: 'extmsg.participant_recorded',
      actor: ctx.actor,
      subject: participant.ID,
      ts: ctx.now,
      payload: { participant },
    },
  ]);
}

/** Removes a group's participant. Unknown group or handle: 404. This is a pure function. */
export function decideRemoveParticipant(
  model: ExtmsgModel,
  body: ExtMsgParticipantRemoveBody,
  ctx: EventContext,
): Outcome<ConversationGroupParticipant> {
  if (!model.groups.has(body.group_id)) return reject('not_found', `group ${body.group_id} not found`);
  const handle = normalizeHandle(body.handle);
  const participant = model.participants.get(body.group_id)?.get(handle);
  if (!participant) return reject('not_found', `participant ${handle} not found in group ${body.group_id}`);
  return accept(participant, [
    {
      type: 'extmsg.participant_removed',
      actor: ctx.actor,
      subject: participant.ID,
      ts: ctx.now,
      payload: { group_id: body.group_id, handle },
    },
  ]);
}
