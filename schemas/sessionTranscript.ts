import { Type, type Static } from 'typebox';
import { nullableArray, stringMap } from './beadsCommon.ts';
import { named } from './named.ts';

/**
 * Wire shapes of a session's conversation (upstream's names, fields and requiredness; our descriptions):
 * the transcript page, the session stream's frames, pending interactions and the sub-agents of a session.
 */

/**
 * Upstream OutputTurn: one turn of a conversation, or the whole screen (`role: output`). The one definition
 * of the component: the agents' output and the sessions' transcripts both answer with it.
 */
export const OutputTurn = named(
  Type.Object(
    {
      role: Type.String({ description: 'user, assistant, … or `output` for a screen.' }),
      text: Type.String(),
      timestamp: Type.Optional(Type.String({ description: 'When the turn was written (RFC 3339).' })),
    },
    { $id: 'OutputTurn', title: 'OutputTurn', additionalProperties: false },
  ),
);

export const PaginationInfo = named(
  Type.Object(
    {
      has_older_messages: Type.Boolean({ description: 'Older messages exist: page with before.' }),
      total_message_count: Type.Integer({
        format: 'int64',
        description:
          'Messages in the conversation (for logs over 8 MiB: those the read reached, a lower bound while ' +
          'has_older_messages is true).',
      }),
      returned_message_count: Type.Integer({ format: 'int64', description: 'Messages in this page.' }),
      truncated_before_message: Type.Optional(
        Type.String({ description: 'The first returned message: pass it as before for the older page.' }),
      ),
      total_compactions: Type.Integer({ format: 'int64', description: 'Compactions the read crossed.' }),
    },
    { $id: 'PaginationInfo', title: 'PaginationInfo', additionalProperties: false },
  ),
);

/** Upstream SessionRawMessageFrame: any JSON, as the provider wrote it. */
export const SessionRawMessageFrame = named(
  Type.Unsafe<unknown>({
    $id: 'SessionRawMessageFrame',
    title: 'Session raw transcript frame',
    description:
      "One entry of the provider's own log, forwarded verbatim (any JSON); `provider` on the envelope says " +
      'how to read it.',
  }),
);

const head = {
  id: Type.String({ description: 'Session id.' }),
  template: Type.String({ description: 'Session template.' }),
  provider: Type.String({
    description: 'The agent CLI that wrote the log (claude, codex, gemini, mock, …).',
  }),
};

export const SessionTranscriptGetResponse = named(
  Type.Object(
    {
      ...head,
      format: Type.String({ description: 'conversation, text (a screen, no log yet) or raw.' }),
      turns: Type.Optional(nullableArray(Type.Ref('OutputTurn'), { description: 'conversation and text.' })),
      messages: Type.Optional(
        nullableArray(Type.Ref('SessionRawMessageFrame'), { description: 'raw: the log entries verbatim.' }),
      ),
      pagination: Type.Optional(Type.Ref('PaginationInfo')),
    },
    {
      $id: 'SessionTranscriptGetResponse',
      title: 'SessionTranscriptGetResponse',
      additionalProperties: false,
    },
  ),
);

export const SessionStreamMessageEvent = named(
  Type.Object(
    {
      ...head,
      format: Type.String({ description: 'conversation, or text while the session has no log.' }),
      turns: nullableArray(Type.Ref('OutputTurn')),
      pagination: Type.Optional(Type.Ref('PaginationInfo')),
    },
    { $id: 'SessionStreamMessageEvent', title: 'SessionStreamMessageEvent', additionalProperties: false },
  ),
);

export const SessionStreamRawMessageEvent = named(
  Type.Object(
    {
      ...head,
      format: Type.String({ description: 'raw.' }),
      messages: nullableArray(Type.Ref('SessionRawMessageFrame')),
      pagination: Type.Optional(Type.Ref('PaginationInfo')),
    },
    {
      $id: 'SessionStreamRawMessageEvent',
      title: 'SessionStreamRawMessageEvent',
      additionalProperties: false,
    },
  ),
);

export const SessionActivityEvent = named(
  Type.Object(
    { activity: Type.String({ description: 'idle or in-turn.' }) },
    { $id: 'SessionActivityEvent', title: 'SessionActivityEvent', additionalProperties: false },
  ),
);

export const PendingInteraction = named(
  Type.Object(
    {
      request_id: Type.String({ description: 'Pass it to /respond; stable while the same prompt shows.' }),
      kind: Type.String({ description: 'approval.' }),
      prompt: Type.Optional(Type.String({ description: 'What is asked, e.g. `Bash: rm -rf build`.' })),
      options: Type.Optional(nullableArray(Type.String(), { description: 'The choices, in key order.' })),
      metadata: Type.Optional(stringMap({ description: 'tool_name and source.' })),
    },
    { $id: 'PendingInteraction', title: 'PendingInteraction', additionalProperties: false },
  ),
);
export type PendingInteraction = Static<typeof PendingInteraction>;

/**
 * Upstream SessionStreamCommonEvent: the data of a session stream's non-message frames, which the SSE
 * event name tells apart (`activity`, `pending`, `heartbeat`). No operation refers to it (each frame names
 * its own schema); it is a component for clients generated from upstream's document that use it.
 */
export const SessionStreamCommonEvent = named(
  Type.Union([Type.Ref('SessionActivityEvent'), Type.Ref('PendingInteraction'), Type.Ref('HeartbeatEvent')], {
    $id: 'SessionStreamCommonEvent',
    title: 'Session stream lifecycle event',
    description: 'A session stream frame other than a message: activity, pending or heartbeat.',
  }),
);

export const SessionPendingResponse = named(
  Type.Object(
    {
      supported: Type.Boolean({ description: 'The runtime can show and answer prompts.' }),
      pending: Type.Optional(Type.Ref('PendingInteraction')),
    },
    { $id: 'SessionPendingResponse', title: 'SessionPendingResponse', additionalProperties: false },
  ),
);

export const SessionRespondInputBody = named(
  Type.Object(
    {
      action: Type.String({
        minLength: 1,
        description:
          'approve (or allow), approve_always, deny, or answer (with text: an option or its number).',
      }),
      request_id: Type.Optional(
        Type.String({ description: 'The prompt answered; a different current prompt is a 409.' }),
      ),
      text: Type.Optional(Type.String({ description: 'The answer of action answer.' })),
      metadata: Type.Optional(stringMap({ description: 'Ignored; accepted as upstream does.' })),
    },
    { $id: 'SessionRespondInputBody', title: 'SessionRespondInputBody', additionalProperties: false },
  ),
);

export const SessionRespondOutputBody = named(
  Type.Object(
    {
      status: Type.String({ description: 'accepted.' }),
      id: Type.String({ description: 'Session id.' }),
    },
    { $id: 'SessionRespondOutputBody', title: 'SessionRespondOutputBody', additionalProperties: false },
  ),
);

export const CityPendingEntry = named(
  Type.Object(
    {
      session_id: Type.String(),
      request_id: Type.String(),
      kind: Type.String(),
    },
    { $id: 'CityPendingEntry', title: 'CityPendingEntry', additionalProperties: false },
  ),
);

export const ListBodyCityPendingEntry = named(
  Type.Object(
    {
      items: nullableArray(Type.Ref('CityPendingEntry')),
      total: Type.Integer({ format: 'int64' }),
      next_cursor: Type.Optional(Type.String()),
      partial: Type.Optional(Type.Boolean()),
      partial_errors: Type.Optional(nullableArray(Type.String())),
    },
    { $id: 'ListBodyCityPendingEntry', title: 'ListBodyCityPendingEntry', additionalProperties: false },
  ),
);

export const AgentMapping = named(
  Type.Object(
    {
      agent_id: Type.String({ description: 'The sub-agent (its log is agent-<id>.jsonl).' }),
      parent_tool_use_id: Type.String({ description: 'The Task tool call that started it.' }),
    },
    { $id: 'AgentMapping', title: 'AgentMapping', additionalProperties: false },
  ),
);

export const SessionAgentListResponse = named(
  Type.Object(
    { agents: nullableArray(Type.Ref('AgentMapping')) },
    { $id: 'SessionAgentListResponse', title: 'SessionAgentListResponse', additionalProperties: false },
  ),
);

export const SessionAgentGetResponse = named(
  Type.Object(
    {
      messages: nullableArray(Type.Unknown(), { description: "The sub-agent's log entries verbatim." }),
      status: Type.Optional(Type.String({ description: 'pending, running, completed or failed.' })),
    },
    { $id: 'SessionAgentGetResponse', title: 'SessionAgentGetResponse', additionalProperties: false },
  ),
);

/** Query of GET /session/{id}/transcript (upstream's, plus `limit`). A blank value is absent. */
export const SessionTranscriptQuery = Type.Object(
  {
    format: Type.Optional(Type.String({ description: 'conversation (default) or raw.' })),
    tail: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description: 'Compaction segments from the end, after the before cut (0, the default: all).',
      }),
    ),
    before: Type.Optional(Type.String({ description: 'Entries before this message uuid.' })),
    after: Type.Optional(Type.String({ description: 'Entries after this message uuid (the oldest first).' })),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 5000,
        description: 'At most this many messages, newest kept (default 500; ours, not upstream).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SessionTranscriptQuery = Static<typeof SessionTranscriptQuery>;

/** Query of GET /session/{id}/stream. */
export const SessionStreamQuery = Type.Object(
  { format: Type.Optional(Type.String({ description: 'conversation (default) or raw.' })) },
  { additionalProperties: false },
);

export const SESSION_TRANSCRIPT_SCHEMAS = [
  OutputTurn,
  PaginationInfo,
  SessionRawMessageFrame,
  SessionTranscriptGetResponse,
  SessionStreamMessageEvent,
  SessionStreamRawMessageEvent,
  SessionActivityEvent,
  PendingInteraction,
  SessionStreamCommonEvent,
  SessionPendingResponse,
  SessionRespondInputBody,
  SessionRespondOutputBody,
  CityPendingEntry,
  ListBodyCityPendingEntry,
  AgentMapping,
  SessionAgentListResponse,
  SessionAgentGetResponse,
] as const;
