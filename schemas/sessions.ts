import { Type, type Static } from 'typebox';
import { nullableArray, stringMap } from './beadsCommon.ts';
import { named } from './named.ts';
import { QueryInteger } from './queryIntegerSchema.ts';

/**
 * The session family's wire shapes (upstream's names, fields and requiredness; our descriptions). Each
 * named schema is the source of its TypeScript type, its validator and its OpenAPI component (`$id` =
 * component name). `actors/sessions/sessionApi.ts` states the same shapes as the facade's types; the route
 * tests check that the two stay assignable both ways.
 */

/** The intents of a submit (upstream SubmitIntent). */
export const SUBMIT_INTENTS = ['default', 'follow_up', 'interrupt_now'] as const;
export type SubmitIntentValue = (typeof SUBMIT_INTENTS)[number];

/** Upstream SubmitIntent: how a submitted message is delivered relative to the turn in progress. */
export const SubmitIntent = named(
  Type.Unsafe<SubmitIntentValue>({
    $id: 'SubmitIntent',
    title: 'SubmitIntent',
    type: 'string',
    enum: [...SUBMIT_INTENTS],
    description:
      '`default`: deliver now, waiting for the agent to be idle; `follow_up`: queue behind the turn in ' +
      'progress; `interrupt_now`: interrupt the turn, then deliver.',
  }),
);

/** Upstream SubmissionCapabilities: the submit intents the session's provider can honour. */
export const SubmissionCapabilities = named(
  Type.Object(
    {
      supports_follow_up: Type.Boolean({ description: '`intent: follow_up` is supported.' }),
      supports_interrupt_now: Type.Boolean({ description: '`intent: interrupt_now` is supported.' }),
    },
    { $id: 'SubmissionCapabilities', title: 'SubmissionCapabilities', additionalProperties: false },
  ),
);
export type SubmissionCapabilities = Static<typeof SubmissionCapabilities>;

/** Upstream SessionResponse: one session as every read, the text mutations and `session.create` show it. */
export const SessionResponse = named(
  Type.Object(
    {
      id: Type.String({ description: 'Session id (the id of its `session` bead).' }),
      template: Type.String({ description: 'The agent template (qualified name) it was created from.' }),
      title: Type.String({ description: 'Human-readable title.' }),
      provider: Type.String({ description: 'The agent CLI running it (claude, codex, gemini, mock, …).' }),
      session_name: Type.String({ description: 'Its name on the runtime (the tmux session name).' }),
      state: Type.String({
        description:
          'Lifecycle state: creating, active, asleep, suspended, draining, drained, archived, quarantined, ' +
          'closing, closed, orphaned or stopped.',
      }),
      created_at: Type.String({ description: 'When it was created (RFC 3339).' }),
      running: Type.Boolean({ description: 'Its process is running on the runtime.' }),
      attached: Type.Boolean({ description: 'A terminal is attached to it.' }),
      kind: Type.Optional(Type.String({ description: 'What it was created from: agent or provider.' })),
      alias: Type.Optional(Type.String({ description: 'Alias; addresses the session like its id.' })),
      display_name: Type.Optional(Type.String()),
      reason: Type.Optional(
        Type.String({ description: 'Why it is in its state (a crash, a quarantine, …).' }),
      ),
      activity: Type.Optional(Type.String({ description: 'idle or in-turn.' })),
      last_active: Type.Optional(Type.String({ description: 'Last activity (RFC 3339).' })),
      last_output: Type.Optional(
        Type.String({ description: 'The last lines of its screen; only when asked with `peek`.' }),
      ),
      last_nudge_delivered_at: Type.Optional(Type.String()),
      metadata: Type.Optional(stringMap({ description: 'Metadata of its session bead.' })),
      options: Type.Optional(stringMap({ description: 'Provider or agent options in effect.' })),
      model: Type.Optional(Type.String()),
      pool: Type.Optional(Type.String()),
      rig: Type.Optional(Type.String()),
      active_bead: Type.Optional(Type.String({ description: 'The work bead it is on.' })),
      agent_kind: Type.Optional(Type.String()),
      configured_named_session: Type.Optional(
        Type.Boolean({ description: 'It is a named session the city configuration declares.' }),
      ),
      context_pct: Type.Optional(
        Type.Integer({ format: 'int64', description: 'Share of the context window in use, in percent.' }),
      ),
      context_window: Type.Optional(
        Type.Integer({ format: 'int64', description: 'Size of the context window, in tokens.' }),
      ),
      submission_capabilities: Type.Optional(Type.Ref('SubmissionCapabilities')),
    },
    { $id: 'SessionResponse', title: 'SessionResponse', additionalProperties: false },
  ),
);
/** SessionResponse with `submission_capabilities` typed through its `$ref` (TypeBox types a Ref as unknown). */
export type SessionResponse = Omit<Static<typeof SessionResponse>, 'submission_capabilities'> & {
  submission_capabilities?: SubmissionCapabilities;
};

/** Upstream ListBodySessionResponse: a page of sessions. */
export const ListBodySessionResponse = named(
  Type.Object(
    {
      items: nullableArray(Type.Ref('SessionResponse'), { description: 'The sessions of this page.' }),
      total: Type.Integer({ format: 'int64', description: 'How many sessions match the query in all.' }),
      next_cursor: Type.Optional(
        Type.String({ description: 'Pass as `cursor` for the next page; absent on the last one.' }),
      ),
      partial: Type.Optional(Type.Boolean({ description: 'Some sessions could not be listed.' })),
      partial_errors: Type.Optional(nullableArray(Type.String(), { description: 'Why, one line each.' })),
    },
    { $id: 'ListBodySessionResponse', title: 'ListBodySessionResponse', additionalProperties: false },
  ),
);
export type ListBodySessionResponse = Omit<Static<typeof ListBodySessionResponse>, 'items'> & {
  items: SessionResponse[] | null;
};

/** Upstream AsyncAcceptedBody (city scope: `status` plus a city seq as the cursor). */
export const AsyncAcceptedBody = named(
  Type.Object(
    {
      status: Type.String({ description: 'Always `accepted`.', examples: ['accepted'] }),
      request_id: Type.String({
        description:
          'Correlation id: exactly one `request.result.session.create`, `request.result.session.message`, ' +
          '`request.result.session.submit` or `request.failed` with this `payload.request_id` follows on ' +
          'the city event stream.',
      }),
      event_cursor: Type.String({
        description:
          "The city log's head before the request was accepted, in decimal: pass it as `after_seq` to " +
          '/v0/city/{cityName}/events/stream to receive the result without older backlog.',
      }),
    },
    { $id: 'AsyncAcceptedBody', title: 'AsyncAcceptedBody', additionalProperties: false },
  ),
);
export type AsyncAcceptedBody = Static<typeof AsyncAcceptedBody>;

/** Upstream OKWithIDResponseBody: `{status: "ok", id}` of stop, kill and wake. */
export const OKWithIDResponseBody = named(
  Type.Object(
    {
      status: Type.String({ description: 'Operation result.', examples: ['ok'] }),
      id: Type.Optional(Type.String({ description: 'The session id.' })),
    },
    { $id: 'OKWithIDResponseBody', title: 'OKWithIDResponseBody', additionalProperties: false },
  ),
);
export type OKWithIDResponseBody = Static<typeof OKWithIDResponseBody>;

/** Upstream SessionCreateBody. Which fields a kind needs is the session service's to check. */
export const SessionCreateBody = named(
  Type.Object(
    {
      kind: Type.Optional(Type.String({ description: 'What to start: `agent` (a template) or `provider`.' })),
      name: Type.Optional(Type.String({ description: 'The agent template or provider to start.' })),
      alias: Type.Optional(Type.String({ description: 'An alias to address the session by.' })),
      title: Type.Optional(Type.String({ description: 'Human-readable title.' })),
      message: Type.Optional(Type.String({ description: 'A first message, delivered once it is ready.' })),
      options: Type.Optional(stringMap({ description: 'Option overrides for the agent or provider.' })),
      project_id: Type.Optional(Type.String({ description: 'Opaque project context, kept as given.' })),
      async: Type.Optional(Type.Boolean({ description: 'Create in the background (agent kind only).' })),
      session_name: Type.Optional(
        Type.String({ deprecated: true, description: 'Deprecated and refused (422): use `alias`.' }),
      ),
    },
    { $id: 'SessionCreateBody', title: 'SessionCreateBody', additionalProperties: false },
  ),
);
export type SessionCreateBody = Static<typeof SessionCreateBody>;

/** A message: at least one character that is not white space. */
const messageText = (description: string) => Type.String({ minLength: 1, pattern: '\\S', description });

/** Upstream SessionMessageInputBody. */
export const SessionMessageInputBody = named(
  Type.Object(
    { message: messageText('The text to type into the session.') },
    { $id: 'SessionMessageInputBody', title: 'SessionMessageInputBody', additionalProperties: false },
  ),
);
export type SessionMessageInputBody = Static<typeof SessionMessageInputBody>;

/** Upstream SessionSubmitInputBody. */
export const SessionSubmitInputBody = named(
  Type.Object(
    {
      message: messageText('The text to submit as a user turn.'),
      intent: Type.Optional(
        Type.Unsafe<SubmitIntentValue>({ ...Type.Ref('SubmitIntent'), description: 'Absent: `default`.' }),
      ),
    },
    { $id: 'SessionSubmitInputBody', title: 'SessionSubmitInputBody', additionalProperties: false },
  ),
);
export type SessionSubmitInputBody = Static<typeof SessionSubmitInputBody>;

/** Upstream SessionPatchBody; an empty patch is refused (422), as upstream's handler does. */
export const SessionPatchBody = named(
  Type.Object(
    {
      title: Type.Optional(Type.String({ minLength: 1, description: 'New title; not empty.' })),
      alias: Type.Optional(Type.String({ description: 'New alias; the empty string removes it.' })),
    },
    {
      $id: 'SessionPatchBody',
      title: 'SessionPatchBody',
      additionalProperties: false,
      minProperties: 1,
    },
  ),
);
export type SessionPatchBody = Static<typeof SessionPatchBody>;

/** Upstream SessionRenameInputBody. */
export const SessionRenameInputBody = named(
  Type.Object(
    { title: Type.String({ minLength: 1, description: 'New title; not empty.' }) },
    { $id: 'SessionRenameInputBody', title: 'SessionRenameInputBody', additionalProperties: false },
  ),
);
export type SessionRenameInputBody = Static<typeof SessionRenameInputBody>;

/** Upstream SessionPermissionModeBody. */
export const SessionPermissionModeBody = named(
  Type.Object(
    {
      permission_mode: Type.String({
        minLength: 1,
        pattern: '\\S',
        description: "A value of the provider's `permission_mode` option.",
      }),
    },
    { $id: 'SessionPermissionModeBody', title: 'SessionPermissionModeBody', additionalProperties: false },
  ),
);
export type SessionPermissionModeBody = Static<typeof SessionPermissionModeBody>;

/** `GET /sessions` query. A blank value is absent, as Go reads it. */
export const SessionListQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ description: 'Only sessions in this state (active, closed, …).' })),
    template: Type.Optional(Type.String({ description: 'Only sessions of this agent template.' })),
    peek: Type.Optional(
      Type.Boolean({ description: 'Fill `last_output` with the last lines of each screen.' }),
    ),
    cursor: Type.Optional(
      Type.String({ description: 'The `next_cursor` of the previous page; a malformed one is a 400.' }),
    ),
    limit: Type.Optional(QueryInteger('Page size; 0 or absent: the server default.')),
  },
  { additionalProperties: false },
);
export type SessionListQuery = Static<typeof SessionListQuery>;

/** The most lines `peek_lines` may ask for. */
export const PEEK_LINES_MAX = 10_000;

/** `GET /session/{id}` query. */
export const SessionGetQuery = Type.Object(
  {
    peek: Type.Optional(
      Type.Boolean({ description: 'Fill `last_output` with the last lines of the screen.' }),
    ),
    peek_lines: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: PEEK_LINES_MAX,
        description: 'How many lines `peek` shows (default 5).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SessionGetQuery = Static<typeof SessionGetQuery>;

/** `POST /session/{id}/close` query. */
export const SessionCloseQuery = Type.Object(
  { delete: Type.Optional(Type.Boolean({ description: 'Also delete the session bead once closed.' })) },
  { additionalProperties: false },
);
export type SessionCloseQuery = Static<typeof SessionCloseQuery>;

/** Every named schema of the session family, referenced ones first (for `addSchema`). */
export const SESSION_SCHEMAS = [
  SubmitIntent,
  SubmissionCapabilities,
  SessionResponse,
  ListBodySessionResponse,
  AsyncAcceptedBody,
  OKWithIDResponseBody,
  SessionCreateBody,
  SessionMessageInputBody,
  SessionSubmitInputBody,
  SessionPatchBody,
  SessionRenameInputBody,
  SessionPermissionModeBody,
] as const;
