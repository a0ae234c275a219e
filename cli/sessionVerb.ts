import * as Args from '@oclif/core/args';
import { compact } from './jsonl.ts';
import { mutate, sessionPath, sessionTarget } from './sessionClient.ts';

/** The one argument of the lifecycle verbs. */
export const idArg = {
  id: Args.string({ description: 'session id, alias or runtime session name', required: true }),
};

/** The lifecycle verbs: each is `POST /v0/city/{city}/session/{id}/<verb>` without a body. */
export type SessionVerb = 'stop' | 'kill' | 'suspend' | 'wake' | 'close';

/**
 * Runs a lifecycle verb on a session and resolves with the answer (`{"status":"ok"}`, with the session
 * `id` for stop, kill and wake) as one compact JSON line.
 *
 * Effects: API discovery, one HTTP request. @throws ApiError (e.g. 404 not_found:, 409 conflict:), CliError
 */
export async function runVerb(
  flags: { api?: string; city?: string },
  id: string,
  verb: SessionVerb,
  query: Record<string, string | undefined> = {},
): Promise<string> {
  const { client, city } = await sessionTarget(flags);
  const body = await mutate<unknown>(client, { method: 'POST', path: sessionPath(city, id, verb), query });
  return compact(body ?? { status: 'ok' });
}
