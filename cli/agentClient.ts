import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { ApiClient, apiErrorFrom } from './api.ts';
import { resolveScope } from './cityScope.ts';
import { discoverApi } from './discover.ts';
import { CliError } from './errors.ts';
import { compact } from './jsonl.ts';

/** The flags every `gc agent` command takes: where the API is and which city's agents. */
export const agentFlags = {
  api: Flags.string({ description: 'supervisor API base URL (default: GC_API, then auto-discovery)' }),
  city: Flags.string({
    description: 'city of the agent: a registered name or a city directory (default: GC_CITY, then cwd)',
  }),
};

/** The one argument of the per-agent commands. */
export const nameArg = {
  name: Args.string({
    description: 'agent name: `base` for a city agent, `rig/base` for a rig agent',
    required: true,
  }),
};

/** The API and the city an agent command works on. */
export interface AgentTarget {
  client: ApiClient;
  city: string;
}

/**
 * Finds the API and the city in scope (`--city`, `GC_CITY`, or the city directory containing the current
 * directory, as `gc session` does). Agents live in a city, so no city in scope is an error.
 *
 * Effects: API discovery; may call GET /v0/cities. @throws CliError, ApiError, TransportError
 */
export async function agentTarget(flags: { api?: string; city?: string }): Promise<AgentTarget> {
  const client = new ApiClient(await discoverApi(flags.api));
  const scope = await resolveScope(client, { flag: flags.city, env: process.env, cwd: process.cwd() });
  if (scope.kind !== 'city') {
    throw new CliError('no city in scope; pass --city <name>, set GC_CITY, or run inside a city directory');
  }
  return { client, city: scope.city };
}

/** `/v0/city/{city}/agents`. Pure. */
export const agentsPath = (city: string): string => `/v0/city/${encodeURIComponent(city)}/agents`;

/**
 * `/v0/city/{city}/agent/{base}` or `…/agent/{dir}/{base}` for a qualified name, plus an optional verb
 * (`suspend`, `output` …). Pure. @throws CliError for a name with more than one `/` or an empty part.
 */
export function agentPath(city: string, name: string, verb?: string): string {
  const parts = name.split('/');
  if (parts.length > 2 || parts.some((p) => p === '')) {
    throw new CliError(`invalid agent name "${name}": expected <base> or <rig>/<base>`);
  }
  const base = `/v0/city/${encodeURIComponent(city)}/agent/${parts.map(encodeURIComponent).join('/')}`;
  return verb === undefined ? base : `${base}/${verb}`;
}

/**
 * Sends a mutation with the API's anti-CSRF header (`X-GC-Request: gc`) and resolves with the parsed body
 * (undefined when empty).
 *
 * Effects: one HTTP request. @throws ApiError (an error status, with the Problem's detail), TransportError
 */
export async function agentMutation<T>(
  client: ApiClient,
  method: 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-gc-request': 'gc' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await client.fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw await apiErrorFrom(res);
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * Runs a bodyless agent mutation (`DELETE`, `POST …/suspend`, `POST …/resume`) and resolves with the answer
 * (`{"status":"ok"}`) as one compact JSON line.
 *
 * Effects: API discovery, one HTTP request. @throws ApiError (e.g. 404 not_found:), CliError
 */
export async function runAgentVerb(
  flags: { api?: string; city?: string },
  name: string,
  verb: 'remove' | 'suspend' | 'resume',
): Promise<string> {
  const { client, city } = await agentTarget(flags);
  const body =
    verb === 'remove'
      ? await agentMutation<unknown>(client, 'DELETE', agentPath(city, name))
      : await agentMutation<unknown>(client, 'POST', agentPath(city, name, verb));
  return compact(body ?? { status: 'ok' });
}
