/**
 * What the HTTP routes and the CLI see of a city's agents: the facade the agent service implements
 * (`LiveCity.services[AGENT_SERVICE]`). Shapes are upstream's wire shapes (AgentResponse and the request
 * bodies); `schemas/agents.ts` holds their TypeBox schemas and must stay assignable to these types.
 * An agent is addressed by its qualified name: `base` for a city-scoped agent, `dir/base` for a rig's.
 */

/** Upstream's agent states (computed on read from config and the runtime); the agent machine's states. */
export { AGENT_STATES, type AgentState } from '../../machines/agents/agent.machine.ts';

/** Upstream AgentResponse. */
export interface AgentView {
  /** The qualified name (`base` or `dir/base`); a pool instance is `base-N`. */
  name: string;
  running: boolean;
  suspended: boolean;
  state: string;
  available: boolean;
  unavailable_reason?: string;
  display_name?: string;
  description?: string;
  provider?: string;
  rig?: string;
  /** The template's qualified name, for an instance of a multi-session agent. */
  pool?: string;
  session?: { name: string; attached: boolean; last_activity?: string };
  active_bead?: string;
  activity?: string;
  last_output?: string;
  model?: string;
  context_pct?: number;
  context_window?: number;
  /** Ours (`?extras=true`): the template's `work_query`. */
  work_query?: string;
}

export interface AgentListQuery {
  /** Only instances of this pool (a template's qualified name). */
  pool?: string;
  rig?: string;
  /** `true` / `false`: only running / not running agents. */
  running?: boolean;
  /** Include `last_output` (a peek of the runtime's screen). */
  peek?: boolean;
}

export interface AgentPage {
  items: AgentView[];
  total: number;
}

/** Upstream AgentCreateInputBody. */
export interface AgentCreateInput {
  name: string;
  provider: string;
  /** The rig (working directory) the agent belongs to: its qualified name is `dir/name`. */
  dir?: string;
  scope?: string;
}

/** Upstream AgentUpdateInputBody. */
export interface AgentUpdateInput {
  provider?: string;
  scope?: string;
  suspended?: boolean;
}

/** The actions of `POST /agent/{name}/{action}`. */
export const AGENT_ACTIONS = ['suspend', 'resume'] as const;
export type AgentAction = (typeof AGENT_ACTIONS)[number];

/** One turn of an agent's output (upstream AgentOutputResponse.turns[]). */
export interface OutputTurn {
  role: string;
  text: string;
  timestamp?: string;
}

/** Upstream AgentOutputResponse. */
export interface AgentOutput {
  agent: string;
  /** `conversation` (from the agent's log) or `text` (a peek of its screen). */
  format: string;
  turns: OutputTurn[];
  pagination?: {
    has_older_messages: boolean;
    total_message_count: number;
    returned_message_count: number;
    truncated_before_message?: string;
    total_compactions: number;
  };
}

/**
 * The agent operations. `name` is a qualified name. Errors are the catalogue's (`actors/runtime/errors.ts`):
 * NotFoundError (404 `not_found:`), ConflictError (409), ValidationError (422 naming the field),
 * UnavailableError (503); nothing changes when one is thrown.
 */
export interface AgentApi {
  /** The city log's head the answers reflect (`X-GC-Index`). */
  readonly index: number;
  /** Resolves once the index passes `index` or `timeoutMs` elapses (blocking queries). */
  waitForIndex(index: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  list(query: AgentListQuery): Promise<AgentPage>;
  get(name: string, options?: { peek?: boolean; extras?: boolean }): Promise<AgentView>;
  /** Adds an `[[agent]]` to city.toml (atomically, evented); answers once it is visible in `list`. */
  create(input: AgentCreateInput, actor: string): Promise<{ status: 'ok'; agent: string }>;
  update(name: string, input: AgentUpdateInput, actor: string): Promise<void>;
  remove(name: string, actor: string): Promise<void>;
  act(name: string, action: AgentAction, actor: string): Promise<void>;
  /** The agent's conversation (its session's log) or, without one, its screen. */
  output(name: string, options: { tail?: number; before?: string }): Promise<AgentOutput>;
}

/** The name of the agents service in `LiveCity.services`. */
export const AGENT_SERVICE = 'agents';
