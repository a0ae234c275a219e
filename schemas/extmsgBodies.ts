import { stringOf } from './stringOf.ts';
import { Type, type Static } from 'typebox';
import { stringMap } from './beadsCommon.ts';
import { QueryInteger } from './queryIntegerSchema.ts';
import { AdapterCapabilitiesSchema, ConversationRefSchema, ExternalInboundMessageSchema } from './extmsg.ts';

/** Request bodies and query parameters of the extmsg operations (upstream's names and requiredness). */

const id = (description: string) => Type.String({ minLength: 1, description });

export const ExtMsgAdapterRegisterBodySchema = Type.Object(
  {
    provider: id('Provider key.'),
    account_id: id('Account the adapter speaks for.'),
    name: Type.Optional(Type.String({ description: 'Display name (default `provider/account_id`).' })),
    callback_url: Type.Optional(
      Type.String({ description: 'Base URL the supervisor POSTs outbound messages to (`<url>/publish`).' }),
    ),
    capabilities: Type.Optional(AdapterCapabilitiesSchema),
  },
  { additionalProperties: false },
);
export type ExtMsgAdapterRegisterBody = Static<typeof ExtMsgAdapterRegisterBodySchema>;

export const ExtMsgAdapterRegisterOutputSchema = Type.Object(
  {
    status: Type.String({ description: 'Operation result: `registered`.' }),
    provider: Type.String({ description: 'Provider key.' }),
    account_id: Type.String({ description: 'Account.' }),
    name: Type.String({ description: 'Adapter name.' }),
  },
  { additionalProperties: false },
);

export const ExtMsgAdapterUnregisterBodySchema = Type.Object(
  { provider: id('Provider key.'), account_id: id('Account.') },
  { additionalProperties: false },
);
export type ExtMsgAdapterUnregisterBody = Static<typeof ExtMsgAdapterUnregisterBodySchema>;

export const ExtMsgBindBodySchema = Type.Object(
  {
    conversation: Type.Optional(ConversationRefSchema),
    session_id: Type.Optional(Type.String({ description: 'Session to bind (or agent_name, not both).' })),
    agent_name: Type.Optional(
      Type.String({ description: 'Agent identity to bind (or session_id, not both).' }),
    ),
    metadata: Type.Optional(stringMap({ description: 'Binding metadata.' })),
  },
  { additionalProperties: false },
);
export type ExtMsgBindBody = Static<typeof ExtMsgBindBodySchema>;

export const ExtMsgUnbindBodySchema = Type.Object(
  {
    conversation: Type.Optional(ConversationRefSchema),
    session_id: Type.Optional(Type.String({ description: 'Session whose bindings end.' })),
    agent_name: Type.Optional(Type.String({ description: 'Agent whose bindings end.' })),
  },
  { additionalProperties: false },
);
export type ExtMsgUnbindBody = Static<typeof ExtMsgUnbindBodySchema>;

export const ExtMsgGroupEnsureBodySchema = Type.Object(
  {
    root_conversation: Type.Optional(ConversationRefSchema),
    mode: Type.Optional(Type.String({ description: 'Group mode (default launcher).' })),
    default_handle: Type.Optional(Type.String({ description: 'Handle untargeted messages go to.' })),
    metadata: Type.Optional(stringMap({ description: 'Group metadata.' })),
  },
  { additionalProperties: false },
);
export type ExtMsgGroupEnsureBody = Static<typeof ExtMsgGroupEnsureBodySchema>;

export const ExtMsgParticipantUpsertBodySchema = Type.Object(
  {
    group_id: id('Group.'),
    handle: id('Handle (trimmed and lower-cased).'),
    session_id: id('Session behind the handle.'),
    public: Type.Optional(Type.Boolean({ description: 'Publicly visible.' })),
    metadata: Type.Optional(stringMap({ description: 'Participant metadata.' })),
  },
  { additionalProperties: false },
);
export type ExtMsgParticipantUpsertBody = Static<typeof ExtMsgParticipantUpsertBodySchema>;

export const ExtMsgParticipantRemoveBodySchema = Type.Object(
  { group_id: id('Group.'), handle: id('Handle.') },
  { additionalProperties: false },
);
export type ExtMsgParticipantRemoveBody = Static<typeof ExtMsgParticipantRemoveBodySchema>;

export const ExtMsgInboundBodySchema = Type.Object(
  {
    message: Type.Optional(ExternalInboundMessageSchema),
    provider: Type.Optional(Type.String({ description: 'Provider of a raw payload.' })),
    account_id: Type.Optional(Type.String({ description: 'Account of a raw payload.' })),
    payload: Type.Optional(
      Type.String({
        contentEncoding: 'base64',
        description: 'Raw payload bytes (in-process adapters only).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExtMsgInboundBody = Static<typeof ExtMsgInboundBodySchema>;

export const ExtMsgOutboundBodySchema = Type.Object(
  {
    session_id: id('Posting session.'),
    conversation: Type.Optional(ConversationRefSchema),
    text: Type.Optional(Type.String({ description: 'Message text.' })),
    reply_to_message_id: Type.Optional(Type.String({ description: 'Message it replies to.' })),
    idempotency_key: Type.Optional(
      Type.String({
        description:
          'Forwarded to the adapter (default: the delivery id). Used again, it answers the first result and delivers nothing.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExtMsgOutboundBody = Static<typeof ExtMsgOutboundBodySchema>;

export const ExtMsgTranscriptAckBodySchema = Type.Object(
  {
    session_id: id('Reading session.'),
    conversation: Type.Optional(ConversationRefSchema),
    sequence: Type.Optional(
      Type.Integer({ format: 'int64', description: 'Read up to this sequence (default: the head).' }),
    ),
  },
  { additionalProperties: false },
);
export type ExtMsgTranscriptAckBody = Static<typeof ExtMsgTranscriptAckBodySchema>;

const convQuery = {
  scope_id: Type.Optional(Type.String({ description: 'Scope ID.' })),
  provider: Type.Optional(Type.String({ description: 'Provider name.' })),
  account_id: Type.Optional(Type.String({ description: 'Account ID.' })),
  conversation_id: Type.Optional(Type.String({ description: 'Conversation ID.' })),
  kind: Type.Optional(stringOf(['dm', 'room', 'thread'], 'The shape of a conversation: dm, room or thread.')),
};

export const ExtMsgGroupQuerySchema = Type.Object(convQuery, { additionalProperties: false });
export type ExtMsgGroupQuery = Static<typeof ExtMsgGroupQuerySchema>;

export const ExtMsgTranscriptQuerySchema = Type.Object(
  {
    ...convQuery,
    parent_conversation_id: Type.Optional(Type.String({ description: 'Parent conversation ID.' })),
    after_sequence: Type.Optional(
      QueryInteger('Return entries with sequence greater than this cursor (default 0).'),
    ),
    limit: Type.Optional(QueryInteger('Maximum number of entries (default 100, at most 500).')),
    order: Type.Optional(
      Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
        description: 'asc (oldest first, default) or desc (newest first).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExtMsgTranscriptQuery = Static<typeof ExtMsgTranscriptQuerySchema>;

export const ExtMsgBindingsQuerySchema = Type.Object(
  { session_id: Type.Optional(Type.String({ description: 'Session ID to list bindings for.' })) },
  { additionalProperties: false },
);
