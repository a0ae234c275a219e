import { Type, type Static } from 'typebox';
import { nullableArray, stringMap } from './beadsCommon.ts';

/**
 * The external-messaging records as the wire carries them. Field names are upstream's, PascalCase on the
 * records (Go struct fields) and snake_case on the conversation reference and inbound message; every object
 * is closed. Descriptions are ours.
 */

const int64 = (description: string) => Type.Integer({ format: 'int64', description });
const time = (description: string) => Type.String({ format: 'date-time', description });

/** dm | room | thread. */
export const ConversationKindSchema = Type.Union(
  [Type.Literal('dm'), Type.Literal('room'), Type.Literal('thread')],
  { description: 'The shape of a conversation: dm, room or thread.' },
);
export type ConversationKind = Static<typeof ConversationKindSchema>;

/** Where a conversation lives: provider, account, scope (workspace), id, and a thread's parent. */
export const ConversationRefSchema = Type.Object(
  {
    scope_id: Type.String({ description: 'Workspace or server the conversation belongs to.' }),
    provider: Type.String({ description: 'Chat provider key (slack, discord, …).' }),
    account_id: Type.String({ description: 'Adapter account the conversation is reached through.' }),
    conversation_id: Type.String({ description: 'The channel, DM or thread id on the provider.' }),
    parent_conversation_id: Type.Optional(Type.String({ description: 'The parent of a thread.' })),
    kind: ConversationKindSchema,
  },
  { additionalProperties: false },
);
export type ConversationRef = Static<typeof ConversationRefSchema>;

/** What an adapter can carry. */
export const AdapterCapabilitiesSchema = Type.Object(
  {
    SupportsChildConversations: Type.Boolean({ description: 'The adapter can open threads.' }),
    SupportsAttachments: Type.Boolean({ description: 'The adapter can carry attachments.' }),
    MaxMessageLength: int64('Longest message text the provider accepts (0: no limit).'),
  },
  { additionalProperties: false },
);
export type AdapterCapabilities = Static<typeof AdapterCapabilitiesSchema>;

/** One registered adapter as the list shows it. */
export const ExtmsgAdapterInfoSchema = Type.Object(
  {
    provider: Type.String({ description: 'Provider key.' }),
    account_id: Type.String({ description: 'Account the adapter speaks for.' }),
    name: Type.String({ description: 'Display name (default `provider/account_id`).' }),
  },
  { additionalProperties: false },
);
export type ExtmsgAdapterInfo = Static<typeof ExtmsgAdapterInfoSchema>;

/** Who wrote an external message. */
export const ExternalActorSchema = Type.Object(
  {
    id: Type.String({ description: 'Sender id on the provider.' }),
    display_name: Type.String({ description: 'Sender name as shown.' }),
    is_bot: Type.Boolean({ description: 'True when the sender is a bot.' }),
  },
  { additionalProperties: false },
);
export type ExternalActor = Static<typeof ExternalActorSchema>;

export const ExternalAttachmentSchema = Type.Object(
  {
    provider_id: Type.String({ description: 'Attachment id on the provider.' }),
    url: Type.String({ description: 'Where to fetch it.' }),
    mime_type: Type.String({ description: 'Its media type.' }),
  },
  { additionalProperties: false },
);
export type ExternalAttachment = Static<typeof ExternalAttachmentSchema>;

/** A message an adapter received and normalised. */
export const ExternalInboundMessageSchema = Type.Object(
  {
    provider_message_id: Type.String({
      description: 'The provider’s id of the message: a second inbound with it is the same message.',
    }),
    conversation: ConversationRefSchema,
    actor: ExternalActorSchema,
    text: Type.String({ description: 'Message text.' }),
    explicit_target: Type.Optional(Type.String({ description: 'Handle the message addressed, if any.' })),
    reply_to_message_id: Type.Optional(Type.String({ description: 'Message it replies to.' })),
    attachments: Type.Optional(nullableArray(ExternalAttachmentSchema)),
    dedup_key: Type.Optional(Type.String({ description: 'Carried, not used to deduplicate.' })),
    received_at: time('When the adapter received it.'),
  },
  { additionalProperties: false },
);
export type ExternalInboundMessage = Static<typeof ExternalInboundMessageSchema>;

/**
 * Upstream's BindingStatus, declared as upstream's document declares it (active | ended) so generated
 * clients get the same type. The zero record an inbound answer carries when no binding routed the message
 * has "" here, as upstream's Go zero value does on the wire; stored bindings are always active or ended.
 */
export const BindingStatusSchema = Type.Unsafe<'active' | 'ended' | ''>({
  type: 'string',
  enum: ['active', 'ended'],
  description: 'Lifecycle state of a session binding ("" only in the zero record of an unrouted inbound).',
});

/** A conversation bound to a session (or to an agent identity). */
export const SessionBindingRecordSchema = Type.Object(
  {
    ID: Type.String({ description: 'Binding id.' }),
    SchemaVersion: int64('Record schema version (1).'),
    Conversation: ConversationRefSchema,
    SessionID: Type.String({ description: 'Bound session (empty for an agent binding).' }),
    SessionName: Type.String({ description: 'Runtime name of the bound session (empty when unknown).' }),
    AgentName: Type.String({ description: 'Bound agent identity (empty for a session binding).' }),
    Status: BindingStatusSchema,
    BoundAt: time('When it was bound.'),
    ExpiresAt: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'date-time',
      description: 'Expiry; null for none.',
    }),
    BindingGeneration: int64('Generation of bindings of this conversation, from 1.'),
    Metadata: stringMap({ description: 'Caller metadata.' }),
  },
  { additionalProperties: false },
);
export type SessionBindingRecord = Static<typeof SessionBindingRecordSchema>;

export const FanoutPolicySchema = Type.Object(
  {
    Enabled: Type.Boolean({ description: 'Peer fan-out on.' }),
    AllowUntargetedPublication: Type.Boolean({ description: 'Posts without an explicit target allowed.' }),
    MaxPeerTriggeredPublishes: int64('Limit on publishes a peer triggers.'),
    MaxTotalPeerDeliveries: int64('Limit on peer deliveries in total.'),
  },
  { additionalProperties: false },
);

/** A multi-participant conversation keyed by its root conversation. */
export const ConversationGroupRecordSchema = Type.Object(
  {
    ID: Type.String({ description: 'Group id.' }),
    SchemaVersion: int64('Record schema version (1).'),
    RootConversation: ConversationRefSchema,
    Mode: Type.String({ description: 'Group mode (launcher, …).' }),
    DefaultHandle: Type.String({ description: 'Handle an untargeted message goes to.' }),
    LastAddressedHandle: Type.String({ description: 'Handle the last targeted message went to.' }),
    FanoutPolicy: FanoutPolicySchema,
    Metadata: stringMap({ description: 'Caller metadata.' }),
  },
  { additionalProperties: false },
);
export type ConversationGroupRecord = Static<typeof ConversationGroupRecordSchema>;

/** A handle in a group, mapped to a session. */
export const ConversationGroupParticipantSchema = Type.Object(
  {
    ID: Type.String({ description: 'Participant id.' }),
    GroupID: Type.String({ description: 'Its group.' }),
    Handle: Type.String({ description: 'Handle it is addressed by (trimmed, lower-case).' }),
    SessionID: Type.String({ description: 'The session behind the handle.' }),
    SessionName: Type.String({ description: 'Runtime name of that session (empty when unknown).' }),
    Public: Type.Boolean({ description: 'Publicly visible.' }),
    Metadata: stringMap({ description: 'Caller metadata.' }),
  },
  { additionalProperties: false },
);
export type ConversationGroupParticipant = Static<typeof ConversationGroupParticipantSchema>;

/** One message of a conversation's transcript. */
export const ConversationTranscriptRecordSchema = Type.Object(
  {
    ID: Type.String({ description: 'Entry id.' }),
    SchemaVersion: int64('Record schema version (1).'),
    Conversation: ConversationRefSchema,
    Sequence: int64('Position in the conversation, from 1: the transcript cursor.'),
    Kind: Type.Union([Type.Literal('inbound'), Type.Literal('outbound')], {
      description: 'inbound or outbound.',
    }),
    Provenance: Type.Union([Type.Literal('live'), Type.Literal('hydrated')], {
      description: 'live or hydrated.',
    }),
    ProviderMessageID: Type.String({ description: 'Provider message id (outbound: once delivered).' }),
    Actor: ExternalActorSchema,
    Text: Type.String({ description: 'Message text.' }),
    ExplicitTarget: Type.String({ description: 'Handle the message addressed.' }),
    ReplyToMessageID: Type.String({ description: 'Message it replies to.' }),
    Attachments: nullableArray(ExternalAttachmentSchema),
    SourceSessionID: Type.String({ description: 'Session that wrote it (outbound).' }),
    CreatedAt: time('When it was recorded.'),
    Metadata: stringMap({ description: 'Metadata (outbound: `gc.delivery_id`).' }),
  },
  { additionalProperties: false },
);
export type ConversationTranscriptRecord = Static<typeof ConversationTranscriptRecordSchema>;

export const GroupRouteDecisionSchema = Type.Object(
  {
    Match: Type.String({
      description:
        'How a group routed it: explicit_target, last_addressed, default, no_match (empty: no group).',
    }),
    TargetSessionID: Type.String({ description: 'Session the group chose.' }),
    UpdateCursor: Type.Boolean({ description: 'Whether the group’s last-addressed handle moved.' }),
  },
  { additionalProperties: false },
);
export type GroupRouteDecision = Static<typeof GroupRouteDecisionSchema>;

/** The answer to an inbound message (a duplicate gets the first one's). */
export const InboundResultSchema = Type.Object(
  {
    Message: ExternalInboundMessageSchema,
    Binding: SessionBindingRecordSchema,
    GroupRoute: GroupRouteDecisionSchema,
    TranscriptEntry: ConversationTranscriptRecordSchema,
    TargetSessionID: Type.String({ description: 'Session it was routed to (empty: no match).' }),
    TargetAgentName: Type.String({ description: 'Agent it was routed to (agent bindings).' }),
  },
  { additionalProperties: false },
);
export type InboundResult = Static<typeof InboundResultSchema>;

/** What an adapter answers to a publish (PascalCase; RetryAfter in nanoseconds). */
export const PublishReceiptSchema = Type.Object(
  {
    MessageID: Type.String({ description: 'Provider message id of the delivered message.' }),
    Conversation: ConversationRefSchema,
    Delivered: Type.Boolean({ description: 'True once the adapter acknowledged it.' }),
    FailureKind: Type.String({
      description:
        'Why not (transient, rate_limited, auth, not_found, permanent, unsupported); empty when delivered.',
    }),
    RetryAfter: int64('Suggested delay before a retry, in nanoseconds.'),
    Metadata: stringMap({
      description: 'Adapter metadata; ours adds `gc.delivery_id` and `gc.delivery_status`.',
    }),
  },
  { additionalProperties: false },
);
export type PublishReceipt = Static<typeof PublishReceiptSchema>;

/** Where a session last published in a conversation. */
export const DeliveryContextRecordSchema = Type.Object(
  {
    ID: Type.String({ description: 'Context id.' }),
    SchemaVersion: int64('Record schema version (1).'),
    SessionID: Type.String({ description: 'Session.' }),
    Conversation: ConversationRefSchema,
    BindingGeneration: int64('Generation of the binding it published under.'),
    LastPublishedAt: time('When the last message was delivered.'),
    LastMessageID: Type.String({ description: 'Provider id of the last delivered message.' }),
    SourceSessionID: Type.String({ description: 'Session that wrote it.' }),
    Metadata: stringMap({ description: 'Metadata.' }),
  },
  { additionalProperties: false },
);
export type DeliveryContextRecord = Static<typeof DeliveryContextRecordSchema>;

/** The answer to an outbound message. */
export const OutboundResultSchema = Type.Object(
  {
    Receipt: PublishReceiptSchema,
    DeliveryContext: DeliveryContextRecordSchema,
    TranscriptEntry: ConversationTranscriptRecordSchema,
  },
  { additionalProperties: false },
);
export type OutboundResult = Static<typeof OutboundResultSchema>;

/** Upstream's list envelope. */
export const listBody = <T extends Parameters<typeof nullableArray>[0]>(items: T) =>
  Type.Object(
    {
      items: nullableArray(items, { description: 'The list of items.' }),
      total: int64('Total number of items matching the query.'),
      next_cursor: Type.Optional(Type.String({ description: 'Cursor for the next page of results.' })),
      partial: Type.Optional(Type.Boolean({ description: 'True when the list is incomplete.' })),
      partial_errors: Type.Optional(nullableArray(Type.String(), { description: 'Why it is incomplete.' })),
    },
    { additionalProperties: false },
  );
