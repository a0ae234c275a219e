import type { FastifyReply } from 'fastify';
import { AGENT_SERVICE, type AgentApi } from '../../actors/agents/index.ts';

import { cityService } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';

/**
 * The agent service of a running city: what every agent route serves from.
 * @throws NotFoundError (404 `not_found: city not found or not running: <name>`) while the city is
 *   absent or starting; UnavailableError (503 `unavailable: agent service is not started for city
 *   <name>`) when the city runs without it (its start-up phase has not run, or failed).
 */
export function agentApiFor(deps: Pick<AppDeps, 'cities'>, cityName: string): AgentApi {
  return cityService(deps, cityName, AGENT_SERVICE, 'agent service');
}

/** Who asks, for every agent mutation over HTTP. */
export const API_ACTOR = 'api';

/**
 * The read headers: `X-GC-Index`, the city event index the agent views reflect (the `index` of a later
 * blocking query), and `X-GC-Cache-Age-S`, always 0 because the views are computed on read.
 */
export function setAgentIndexHeaders(reply: FastifyReply, api: AgentApi): FastifyReply {
  return reply.header('X-GC-Index', String(api.index)).header('X-GC-Cache-Age-S', '0');
}

/** A blank query value is absent, as Go reads it. Pure. */
export const present = (value: string | undefined): string | undefined => (value === '' ? undefined : value);
