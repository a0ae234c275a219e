import type { SessionResponse } from '../../schemas/sessions.ts';
import { ApiFailure } from '../bd/client.ts';
import { GcAgentError } from './errors.ts';
import type { AgentIo } from './io.ts';

/**
 * A session named the way agents name them (`<id-or-alias>`, a trailing `/` trimmed as upstream does for
 * named targets: `deacon/` is `deacon`), read through GET /v0/city/{city}/session/{id}, which resolves
 * ids, aliases and runtime names.
 */
export const sessionKey = (target: string): string =>
  target.length > 1 ? target.replace(/\/+$/, '') : target;

export async function sessionUrl(io: AgentIo, target: string, verb = ''): Promise<string> {
  return `${await io.client.cityPath()}/session/${encodeURIComponent(sessionKey(target))}${verb ? `/${verb}` : ''}`;
}

/** The session, or upstream's `session not found: "<x>"` (exit 1). */
export async function getSession(
  io: AgentIo,
  target: string,
  query: Record<string, string> = {},
): Promise<SessionResponse> {
  const q = new URLSearchParams(query).toString();
  try {
    return (await io.client.call('GET', `${await sessionUrl(io, target)}${q ? `?${q}` : ''}`))
      .body as SessionResponse;
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 404)
      throw new GcAgentError(`session not found: "${sessionKey(target)}"`);
    throw err;
  }
}

/** Types text into the session (POST …/messages: the supervisor wakes it when needed, then delivers). */
export async function sendText(io: AgentIo, session: SessionResponse, text: string): Promise<void> {
  await io.client.call('POST', await sessionUrl(io, session.id, 'messages'), { message: text });
}
