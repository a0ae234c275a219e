import { Type, type Static, type TProperties } from 'typebox';
import { stringMap } from './beadsCommon.ts';
import {
  AdapterCapabilitiesSchema,
  ConversationGroupParticipantSchema,
  ConversationGroupRecordSchema,
  ConversationRefSchema,
  ConversationTranscriptRecordSchema,
  DeliveryContextRecordSchema,
  ExternalInboundMessageSchema,
  GroupRouteDecisionSchema,
  PublishReceiptSchema,
  SessionBindingRecordSchema,
} from './extmsg.ts';
import { named } from './named.ts';

/**
 * The state events of the extmsg family: our bookkeeping (docs/compatibility.md), typed like upstream's
 * events but outside upstream's catalogue (served only with `include=internal`). Upstream keeps these
 * records in its bead store; we record each change on the city log, and the family's read model is their
 * fold. Upstream's `extmsg.*` notices (`extmsg.bound`, `extmsg.inbound`, …) follow them in the same batch.
 */

const closed = <P extends TProperties>(id: string, props: P) =>
  named(Type.Object(props, { $id: id, additionalProperties: false }));

/** What the supervisor POSTs to `<callback_url>/publish` (PascalCase, as upstream's HTTP adapters expect). */
export const PublishRequestSchema = Type.Object(
  {
    Conversation: ConversationRefSchema,
    Text: Type.String(),
    ReplyToMessageID: Type.String(),
    IdempotencyKey: Type.String(),
    Metadata: stringMap(),
  },
  { additionalProperties: false },
);
export type PublishRequest = Static<typeof PublishRequestSchema>;

/** `extmsg.adapter_registered`: an adapter registered or re-registered (its notice: `extmsg.adapter_added`). */
export const ExtmsgAdapterRegisteredPayload = closed('ExtmsgAdapterRegisteredPayload', {
  provider: Type.String({ minLength: 1 }),
  account_id: Type.String({ minLength: 1 }),
  name: Type.String(),
  callback_url: Type.String(),
  capabilities: Type.Optional(AdapterCapabilitiesSchema),
});
export type ExtmsgAdapterRegisteredPayload = Static<typeof ExtmsgAdapterRegisteredPayload>;

/** `extmsg.binding_recorded`: a binding as it is now (bound, refreshed or ended). */
export const ExtmsgBindingRecordedPayload = closed('ExtmsgBindingRecordedPayload', {
  binding: SessionBindingRecordSchema,
});

/** `extmsg.group_recorded`: a group as it is now (created, or its last-addressed handle moved). */
export const ExtmsgGroupRecordedPayload = closed('ExtmsgGroupRecordedPayload', {
  group: ConversationGroupRecordSchema,
});

/** `extmsg.participant_recorded`: a participant upserted. */
export const ExtmsgParticipantRecordedPayload = closed('ExtmsgParticipantRecordedPayload', {
  participant: ConversationGroupParticipantSchema,
});

/** `extmsg.participant_removed`. */
export const ExtmsgParticipantRemovedPayload = closed('ExtmsgParticipantRemovedPayload', {
  group_id: Type.String(),
  handle: Type.String(),
});

/** How an inbound message was routed: kept so a duplicate is answered with the first result. */
export const InboundRouteSchema = Type.Object(
  {
    message: ExternalInboundMessageSchema,
    binding: Type.Union([SessionBindingRecordSchema, Type.Null()]),
    group_route: GroupRouteDecisionSchema,
    target_session_id: Type.String(),
    target_agent_name: Type.String(),
  },
  { additionalProperties: false },
);
export type InboundRoute = Static<typeof InboundRouteSchema>;

/** `extmsg.transcript_appended`: an entry added to a conversation's transcript. */
export const ExtmsgTranscriptAppendedPayload = closed('ExtmsgTranscriptAppendedPayload', {
  entry: ConversationTranscriptRecordSchema,
  inbound: Type.Optional(InboundRouteSchema),
});

/** `extmsg.transcript_acked`: a session's read position in a conversation moved forward. */
export const ExtmsgTranscriptAckedPayload = closed('ExtmsgTranscriptAckedPayload', {
  conversation: ConversationRefSchema,
  session_id: Type.String(),
  sequence: Type.Integer({ minimum: 0 }),
});

/** `extmsg.delivery_queued`: an outbound message owed to an adapter. */
export const ExtmsgDeliveryQueuedPayload = closed('ExtmsgDeliveryQueuedPayload', {
  id: Type.String({ minLength: 1 }),
  provider: Type.String(),
  account_id: Type.String(),
  session_id: Type.String(),
  entry_id: Type.String(),
  binding_generation: Type.Integer(),
  request: PublishRequestSchema,
});
export type ExtmsgDeliveryQueuedPayload = Static<typeof ExtmsgDeliveryQueuedPayload>;

/** `extmsg.delivery_failed`: one attempt failed; the next is due at `retry_at`. */
export const ExtmsgDeliveryFailedPayload = closed('ExtmsgDeliveryFailedPayload', {
  id: Type.String(),
  attempt: Type.Integer({ minimum: 1 }),
  failure_kind: Type.String(),
  error: Type.String(),
  retry_at: Type.String(),
});

/** `extmsg.delivery_acked`: the adapter acknowledged; never sent again. */
export const ExtmsgDeliveryAckedPayload = closed('ExtmsgDeliveryAckedPayload', {
  id: Type.String(),
  attempt: Type.Integer({ minimum: 1 }),
  receipt: PublishReceiptSchema,
  context: DeliveryContextRecordSchema,
});

/** `extmsg.delivery_dead`: the dead letter: given up after `attempts`, with the last failure. */
export const ExtmsgDeliveryDeadPayload = closed('ExtmsgDeliveryDeadPayload', {
  id: Type.String(),
  attempts: Type.Integer({ minimum: 0 }),
  failure_kind: Type.String(),
  error: Type.String(),
});

/** Our extmsg state types and their payloads (spread into `OUR_EVENT_PAYLOADS`). */
export const EXTMSG_STATE_PAYLOADS = {
  'extmsg.adapter_registered': ExtmsgAdapterRegisteredPayload,
  'extmsg.binding_recorded': ExtmsgBindingRecordedPayload,
  'extmsg.group_recorded': ExtmsgGroupRecordedPayload,
  'extmsg.participant_recorded': ExtmsgParticipantRecordedPayload,
  'extmsg.participant_removed': ExtmsgParticipantRemovedPayload,
  'extmsg.transcript_appended': ExtmsgTranscriptAppendedPayload,
  'extmsg.transcript_acked': ExtmsgTranscriptAckedPayload,
  'extmsg.delivery_queued': ExtmsgDeliveryQueuedPayload,
  'extmsg.delivery_failed': ExtmsgDeliveryFailedPayload,
  'extmsg.delivery_acked': ExtmsgDeliveryAckedPayload,
  'extmsg.delivery_dead': ExtmsgDeliveryDeadPayload,
} as const;
