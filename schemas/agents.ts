import { Type, type Static } from 'typebox';
import { nullableArray } from './beadsCommon.ts';
import { named } from './named.ts';
import { OutputTurn, PaginationInfo } from './sessionTranscript.ts';

export { OutputTurn };

/**
 * The agent family's wire shapes (upstream's names, fields and requiredness; our descriptions). Each named
 * schema is the source of its TypeScript type, its validator and its OpenAPI component (`$id` = component
 * name). `actors/agents/agentApi.ts` states the same shapes as the facade's types; the route tests check
 * that the two stay assignable both ways.
 */

/** Upstream SessionInfo: the runtime session of a running agent. */
export const SessionInfo = named(
  Type.Object(
    {
      name: Type.String({ description: 'Its name on the runtime (the tmux session name).' }),
      attached: Type.Boolean({ description: 'A terminal is attached to it.' }),
      last_activity: Type.Optional(
        Type.String({ format: 'date-time', description: 'Last activity on the runtime (RFC 3339).' }),
      ),
    },
    { $id: 'SessionInfo', title: 'SessionInfo', additionalProperties: false },
  ),
);
export type SessionInfo = Static<typeof SessionInfo>;

/** Upstream AgentResponse: one agent, its configuration merged with its live runtime state. */
export const AgentResponse = named(
  Type.Object(
    {
      name: Type.String({
        description:
          'Qualified name: `base` for a city agent, `dir/base` for a rig agent; `base-N` for a pool instance.',
      }),
      running: Type.Boolean({ description: 'Its session is running on the runtime.' }),
      suspended: Type.Boolean({ description: 'Suspended in the configuration (or on the runtime).' }),
      state: Type.String({
        description:
          'suspended, quarantined, stopped, working (an active bead and recent activity), waiting or idle.',
      }),
      available: Type.Boolean({ description: 'It can take work now.' }),
      unavailable_reason: Type.Optional(Type.String({ description: 'Why `available` is false.' })),
      display_name: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      provider: Type.Optional(
        Type.String({ description: 'The agent CLI it runs (claude, codex, mock, …).' }),
      ),
      rig: Type.Optional(Type.String({ description: 'The rig it belongs to.' })),
      pool: Type.Optional(
        Type.String({
          description: "The template's qualified name, for an instance of a multi-session agent.",
        }),
      ),
      session: Type.Optional(Type.Ref('SessionInfo')),
      active_bead: Type.Optional(Type.String({ description: 'The bead it is working on.' })),
      activity: Type.Optional(Type.String({ description: 'idle or in-turn.' })),
      last_output: Type.Optional(
        Type.String({ description: 'The last lines of its screen; only when asked with `peek`.' }),
      ),
      model: Type.Optional(Type.String()),
      context_pct: Type.Optional(
        Type.Integer({ format: 'int64', description: 'Share of the context window in use, in percent.' }),
      ),
      context_window: Type.Optional(
        Type.Integer({ format: 'int64', description: 'Size of the context window, in tokens.' }),
      ),
      work_query: Type.Optional(
        Type.String({
          description:
            "Ours, with `?extras=true`: the agent's `work_query` (a shell command `gc hook` runs), when it has one.",
        }),
      ),
    },
    { $id: 'AgentResponse', title: 'AgentResponse', additionalProperties: false },
  ),
);
/** AgentResponse with `session` typed through its `$ref` (TypeBox types a Ref as unknown). */
export type AgentResponse = Omit<Static<typeof AgentResponse>, 'session'> & { session?: SessionInfo };

/** Upstream ListBodyAgentResponse: every agent matching the filters (not paged). */
export const ListBodyAgentResponse = named(
  Type.Object(
    {
      items: nullableArray(Type.Ref('AgentResponse'), { description: 'The agents.' }),
      total: Type.Integer({ format: 'int64', description: 'How many agents match the query.' }),
      next_cursor: Type.Optional(Type.String({ description: 'Never set: the list is not paged.' })),
      partial: Type.Optional(Type.Boolean({ description: 'Some agents could not be listed.' })),
      partial_errors: Type.Optional(nullableArray(Type.String(), { description: 'Why, one line each.' })),
    },
    { $id: 'ListBodyAgentResponse', title: 'ListBodyAgentResponse', additionalProperties: false },
  ),
);
export type ListBodyAgentResponse = Omit<Static<typeof ListBodyAgentResponse>, 'items'> & {
  items: AgentResponse[] | null;
};

/** Upstream AgentCreateInputBody: a new `[[agent]]` of city.toml. */
export const AgentCreateInputBody = named(
  Type.Object(
    {
      name: Type.String({ minLength: 1, description: 'Agent name (its base name).', examples: ['deacon-1'] }),
      provider: Type.String({ minLength: 1, description: 'The agent CLI it runs.', examples: ['claude'] }),
      dir: Type.Optional(
        Type.String({
          description: 'The rig (working directory) it belongs to: its name is then `dir/name`.',
        }),
      ),
      scope: Type.Optional(Type.String({ description: 'Agent scope (city or rig).' })),
    },
    { $id: 'AgentCreateInputBody', title: 'AgentCreateInputBody', additionalProperties: false },
  ),
);
export type AgentCreateInputBody = Static<typeof AgentCreateInputBody>;

/** Upstream AgentCreatedOutputBody. */
export const AgentCreatedOutputBody = named(
  Type.Object(
    {
      status: Type.String({ description: 'Operation result.', examples: ['ok'] }),
      agent: Type.String({ description: 'The qualified name of the agent created.' }),
    },
    { $id: 'AgentCreatedOutputBody', title: 'AgentCreatedOutputBody', additionalProperties: false },
  ),
);
export type AgentCreatedOutputBody = Static<typeof AgentCreatedOutputBody>;

const updateFields = () => ({
  provider: Type.Optional(Type.String({ description: 'The agent CLI it runs.' })),
  scope: Type.Optional(Type.String({ description: 'Agent scope (city or rig).' })),
  suspended: Type.Optional(Type.Boolean({ description: 'Suspend (true) or resume (false) the agent.' })),
});

/** Upstream AgentUpdateInputBody (`PATCH /agent/{base}`); absent fields are left as they are. */
export const AgentUpdateInputBody = named(
  Type.Object(updateFields(), {
    $id: 'AgentUpdateInputBody',
    title: 'AgentUpdateInputBody',
    additionalProperties: false,
  }),
);
export type AgentUpdateInputBody = Static<typeof AgentUpdateInputBody>;

/** Upstream AgentUpdateQualifiedInputBody (`PATCH /agent/{dir}/{base}`): the same fields. */
export const AgentUpdateQualifiedInputBody = named(
  Type.Object(updateFields(), {
    $id: 'AgentUpdateQualifiedInputBody',
    title: 'AgentUpdateQualifiedInputBody',
    additionalProperties: false,
  }),
);
export type AgentUpdateQualifiedInputBody = Static<typeof AgentUpdateQualifiedInputBody>;

export type OutputTurn = Static<typeof OutputTurn>;

/** Upstream PaginationInfo, one schema with the session transcripts' (an agent's output is its session's). */
export type PaginationInfo = Static<typeof PaginationInfo>;

/** Upstream AgentOutputResponse: turns of an agent's conversation, or its screen. */
export const AgentOutputResponse = named(
  Type.Object(
    {
      agent: Type.String({ description: 'The qualified name of the agent.' }),
      format: Type.String({
        description: '`conversation` (turns from its session log) or `text` (one `output` turn: its screen).',
      }),
      turns: nullableArray(Type.Ref('OutputTurn'), { description: 'Oldest first.' }),
      pagination: Type.Optional(Type.Ref('PaginationInfo')),
    },
    { $id: 'AgentOutputResponse', title: 'AgentOutputResponse', additionalProperties: false },
  ),
);
/** AgentOutputResponse with its `$ref`s typed. */
export type AgentOutputResponse = Omit<Static<typeof AgentOutputResponse>, 'turns' | 'pagination'> & {
  turns: OutputTurn[] | null;
  pagination?: PaginationInfo;
};

/** `GET /agents` query. A blank value is absent, as Go reads it. */
export const AgentListQuery = Type.Object(
  {
    pool: Type.Optional(
      Type.String({ description: "Only instances of this pool (a template's qualified name)." }),
    ),
    rig: Type.Optional(Type.String({ description: 'Only agents of this rig.' })),
    running: Type.Optional(
      Type.Unsafe<'true' | 'false'>({
        type: 'string',
        enum: ['true', 'false'],
        description: 'Only running (`true`) or not running (`false`) agents; omit for all.',
      }),
    ),
    peek: Type.Optional(
      Type.Boolean({ description: 'Fill `last_output` with the last lines of each screen.' }),
    ),
  },
  { additionalProperties: false },
);
export type AgentListQuery = Static<typeof AgentListQuery>;

/** Every named schema of the agent family, referenced ones first (for `addSchema`). */
export const AGENT_SCHEMAS = [
  SessionInfo,
  AgentResponse,
  ListBodyAgentResponse,
  AgentCreateInputBody,
  AgentCreatedOutputBody,
  AgentUpdateInputBody,
  AgentUpdateQualifiedInputBody,
  OutputTurn,
  PaginationInfo,
  AgentOutputResponse,
] as const;
