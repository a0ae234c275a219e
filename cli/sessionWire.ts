/**
 * The session wire shapes `gc session` reads and sends (upstream SessionResponse, SessionCreateBody,
 * AsyncAcceptedBody, the OK bodies). Temporary: `schemas/sessions.ts` (TypeBox, being written alongside)
 * will own them, and these become its `Static` types. Only what the CLI touches is spelt out; a field the
 * CLI does not read is passed through as received, never dropped.
 */

/** Upstream SessionResponse, as far as the CLI reads it (list table, attach). */
export interface SessionResponse {
  id: string;
  template: string;
  title: string;
  provider: string;
  session_name: string;
  state: string;
  running: boolean;
  attached: boolean;
  created_at: string;
  alias?: string;
  [field: string]: unknown;
}

/** Upstream ListBodySessionResponse (`items` may be null; `next_cursor` pages on). */
export interface SessionListBody {
  items: SessionResponse[] | null;
  total: number;
  next_cursor?: string;
}

/** Upstream SessionCreateBody (what the CLI sends of it). */
export interface SessionCreateBody {
  name: string;
  kind?: 'agent' | 'provider';
  alias?: string;
  title?: string;
  message?: string;
}

/** Upstream SubmitIntent. */
export const SUBMIT_INTENTS = ['default', 'follow_up', 'interrupt_now'] as const;
export type SubmitIntent = (typeof SUBMIT_INTENTS)[number];

/** Upstream AsyncAcceptedBody (city scope): `event_cursor` is the city log's seq before the work, as text. */
export interface SessionAccepted {
  status: string;
  request_id: string;
  event_cursor: string;
}
