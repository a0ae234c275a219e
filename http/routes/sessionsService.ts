import type { FastifyReply, FastifyRequest } from 'fastify';

import { SESSION_SERVICE, type MutationContext, type SessionApi } from '../../actors/sessions/index.ts';
import { cityService } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';

/**
 * The session service of a running city: what every session route serves from.
 * @throws NotFoundError (404 `not_found: city not found or not running: <name>`) while the city is
 *   absent or starting; UnavailableError (503 `unavailable: session service is not started for city
 *   <name>`) when the city runs without it (its start-up phase has not run, or failed).
 */
export function sessionApiFor(deps: Pick<AppDeps, 'cities'>, cityName: string): SessionApi {
  return cityService(deps, cityName, SESSION_SERVICE, 'session service');
}

/** Who asks, for the synchronous mutations: the actor `api`. */
export const API_CONTEXT: Readonly<MutationContext> = Object.freeze({ actor: 'api' });

/**
 * Who asks, for the asynchronous operations (create, messages, submit, which declare `Idempotency-Key`):
 * the actor `api`, and the request's key when it has a non-blank one (a blank header is absent, as a blank
 * query value is).
 */
export function mutationContext(request: FastifyRequest): MutationContext {
  const key = request.headers['idempotency-key'];
  const idempotencyKey = typeof key === 'string' && key.trim() !== '' ? key : undefined;
  return idempotencyKey === undefined ? { actor: 'api' } : { actor: 'api', idempotencyKey };
}

/**
 * The read headers: `X-GC-Index`, the city event index the session read model reflects (the `index` of a
 * later blocking query), and `X-GC-Cache-Age-S`, always 0 because the read model is live.
 */
export function setSessionIndexHeaders(reply: FastifyReply, api: SessionApi): FastifyReply {
  return reply.header('X-GC-Index', String(api.index)).header('X-GC-Cache-Age-S', '0');
}
