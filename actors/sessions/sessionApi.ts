/**
 * What the HTTP routes and the CLI see of a city's sessions: the facade the session service implements
 * (`LiveCity.services.sessions`). Shapes are upstream's wire shapes (SessionResponse and the request
 * bodies); `schemas/sessions.ts` holds their TypeBox schemas and must stay assignable to these types.
 */

/** Persisted lifecycle states: one list, the session record's. */
export { SESSION_STATES, type SessionState } from '../../machines/sessions/sessionRecord.ts';

export type SubmitIntent = 'default' | 'follow_up' | 'interrupt_now';

/** Upstream SessionResponse (GET/PATCH session, list items, the session.create result). */
export interface SessionView {
  id: string;
  template: string;
  title: string;
  provider: string;
  session_name: string;
  state: string;
  created_at: string;
  running: boolean;
  attached: boolean;
  kind?: string;
  alias?: string;
  display_name?: string;
  reason?: string;
  activity?: string;
  last_active?: string;
  last_output?: string;
  last_nudge_delivered_at?: string;
  metadata?: Record<string, string>;
  options?: Record<string, string>;
  model?: string;
  pool?: string;
  rig?: string;
  active_bead?: string;
  agent_kind?: string;
  configured_named_session?: boolean;
  context_pct?: number;
  context_window?: number;
  submission_capabilities?: { supports_follow_up: boolean; supports_interrupt_now: boolean };
}

export interface SessionListQuery {
  state?: string;
  template?: string;
  /** Include `last_output` (a peek of the runtime's screen). */
  peek?: boolean;
  cursor?: string;
  limit?: number;
}

export interface SessionPage {
  items: SessionView[];
  total: number;
  next_cursor?: string;
}

export interface SessionCreateInput {
  kind?: string;
  name?: string;
  alias?: string;
  title?: string;
  message?: string;
  options?: Record<string, string>;
  project_id?: string;
  async?: boolean;
}

/** What a 202 answers (upstream AsyncAcceptedBody, city scope). */
export interface Accepted {
  status: 'accepted';
  request_id: string;
  /** The city log's head before the request was accepted, as a decimal string. */
  event_cursor: string;
}

/** Who asks and how a retry is recognised. */
export interface MutationContext {
  /** The event's actor (`api` for HTTP, `gc` for the CLI's own writes). */
  actor: string;
  /** `Idempotency-Key`: a retried mutation with the same key answers the original 202 body. */
  idempotencyKey?: string;
}

/**
 * The session operations. Every method resolves `id` as upstream does: bead id, then open session name,
 * then open alias. Errors are the catalogue's (`actors/runtime/errors.ts`): NotFoundError (404 `not_found:`),
 * ConflictError (409 `conflict:` for a transition the state does not allow), ValidationError (422) and
 * UnavailableError (503); nothing changes when one is thrown.
 */
export interface SessionApi {
  /** The city log's head the read model reflects (`X-GC-Index`). */
  readonly index: number;
  list(query: SessionListQuery): Promise<SessionPage>;
  get(id: string, options?: { peek?: boolean; peekLines?: number }): Promise<SessionView>;
  /** 202: `request.result.session.create` (once the session left `creating`) or `request.failed` follows. */
  create(input: SessionCreateInput, ctx: MutationContext): Promise<Accepted>;
  /** 202: `request.result.session.message` or `request.failed` follows. */
  message(id: string, text: string, ctx: MutationContext): Promise<Accepted>;
  /** 202: `request.result.session.submit` or `request.failed` follows. */
  submit(id: string, text: string, intent: SubmitIntent, ctx: MutationContext): Promise<Accepted>;
  patch(id: string, patch: { title?: string; alias?: string }, ctx: MutationContext): Promise<SessionView>;
  rename(id: string, title: string, ctx: MutationContext): Promise<SessionView>;
  setPermissionMode(id: string, mode: string, ctx: MutationContext): Promise<SessionView>;
  /** Stops the current turn (Escape or Ctrl-C); the session stays. Answers the session id. */
  stop(id: string, ctx: MutationContext): Promise<string>;
  /** Ends the process; the state is unchanged and the reconciler restarts it by its rules. */
  kill(id: string, ctx: MutationContext): Promise<string>;
  suspend(id: string, ctx: MutationContext): Promise<void>;
  wake(id: string, ctx: MutationContext): Promise<string>;
  close(id: string, options: { delete?: boolean }, ctx: MutationContext): Promise<void>;
}

/** The name of the sessions service in `LiveCity.services`. */
export const SESSION_SERVICE = 'sessions';
