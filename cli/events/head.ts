import type { ApiClient } from '../api.ts';
import type { Scope } from '../cityScope.ts';
import { CliError } from '../errors.ts';

/** The URL path of a city's event list (names are URL-encoded: they may hold `.`, `-`, `_`). */
export const cityEventsPath = (city: string): string => `/v0/city/${encodeURIComponent(city)}/events`;

/**
 * The current head of the scope's log, as the text `--seq` prints and a stream resumes from: the city's
 * `X-GC-Index` (from `GET …/events?limit=1`), or the supervisor's composite `event_cursor` (from
 * `GET /v0/events?limit=1`; an empty cursor is `0`).
 *
 * Effects: one HTTP request. @throws ApiError, TransportError, CliError (a malformed answer)
 */
export async function headCursor(client: ApiClient, scope: Scope, signal?: AbortSignal): Promise<string> {
  if (scope.kind === 'city') {
    const { headers } = await client.getJson(cityEventsPath(scope.city), { limit: 1 }, signal);
    const index = headers.get('x-gc-index')?.trim() ?? '';
    if (!/^\d+$/.test(index))
      throw new CliError(`invalid X-GC-Index header "${index}" from the city event list`);
    return index;
  }
  const { body } = await client.getJson<{ event_cursor?: unknown }>('/v0/events', { limit: 1 }, signal);
  if (typeof body.event_cursor !== 'string')
    throw new CliError('the supervisor event list has no event_cursor');
  return body.event_cursor.trim() || '0';
}
