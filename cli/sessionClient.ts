import * as Flags from '@oclif/core/flags';
import { ApiClient, apiErrorFrom } from './api.ts';
import { resolveScope } from './cityScope.ts';
import { discoverApi } from './discover.ts';
import { CliError } from './errors.ts';

/** The flags every `gc session` command takes: where the API is and which city's sessions. */
export const sessionFlags = {
  api: Flags.string({ description: 'supervisor API base URL (default: GC_API, then auto-discovery)' }),
  city: Flags.string({
    description: 'city of the session: a registered name or a city directory (default: GC_CITY, then cwd)',
  }),
};

/** The API and the city a session command works on. */
export interface SessionTarget {
  client: ApiClient;
  city: string;
}

/**
 * Finds the API and the city in scope (`--city`, `GC_CITY`, or the city directory containing the current
 * directory, as `gc events` does). Sessions live in a city, so no city in scope is an error.
 *
 * Effects: API discovery; may call GET /v0/cities. @throws CliError, ApiError, TransportError
 */
export async function sessionTarget(flags: { api?: string; city?: string }): Promise<SessionTarget> {
  const client = new ApiClient(await discoverApi(flags.api));
  const scope = await resolveScope(client, { flag: flags.city, env: process.env, cwd: process.cwd() });
  if (scope.kind !== 'city') {
    throw new CliError('no city in scope; pass --city <name>, set GC_CITY, or run inside a city directory');
  }
  return { client, city: scope.city };
}

/** `/v0/city/{city}/sessions`. Pure. */
export const sessionsPath = (city: string): string => `/v0/city/${encodeURIComponent(city)}/sessions`;

/** `/v0/city/{city}/session/{id}` plus an optional verb (`messages`, `stop` …). Pure. */
export function sessionPath(city: string, id: string, verb?: string): string {
  const base = `/v0/city/${encodeURIComponent(city)}/session/${encodeURIComponent(id)}`;
  return verb === undefined ? base : `${base}/${verb}`;
}

/** What `mutate` sends. */
export interface Mutation {
  method: 'POST' | 'PATCH';
  path: string;
  body?: unknown;
  query?: Record<string, string | undefined>;
}

/**
 * Sends a mutation with the API's anti-CSRF header (`X-GC-Request: gc`) and resolves with the parsed body
 * (undefined when empty). `ApiClient.postJson` covers neither PATCH nor a query string, which the session
 * verbs need (`PATCH /session/{id}`, `/close?delete=true`).
 *
 * Effects: one HTTP request. @throws ApiError (an error status, with the Problem's detail), TransportError
 */
export async function mutate<T>(client: ApiClient, m: Mutation): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-gc-request': 'gc' };
  if (m.body !== undefined) headers['content-type'] = 'application/json';
  const res = await client.fetch(m.path, {
    method: m.method,
    headers,
    query: m.query,
    body: m.body === undefined ? undefined : JSON.stringify(m.body),
  });
  if (!res.ok) throw await apiErrorFrom(res);
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}
