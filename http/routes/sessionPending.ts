import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { indexedResponse } from '../../schemas/beadsCommon.ts';
import type { AppDeps } from '../deps.ts';
import { sessionExtrasFor } from './sessionExtras.ts';
import { CityParams, SessionMutationHeaders, SessionParams, sessionTags as tags } from './sessionsParams.ts';
import { setSessionIndexHeaders } from './sessionsService.ts';

/**
 * Pending interactions: `GET /session/{id}/pending` (the prompt the session's screen shows),
 * `POST /session/{id}/respond` (types the answer's one key, then waits for the prompt to clear; 202 as
 * upstream) and the city-wide `GET /v0/city/{cityName}/pending`. A respond with nothing to answer is a
 * `409 no_pending:`, one for a prompt that is no longer shown a `409 invalid_interaction:`.
 */
export function sessionPendingRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v0/city/:cityName/session/:id/pending',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-session-by-id-pending',
        summary: 'The approval prompt a session waits on, if any',
        tags,
        params: SessionParams,
        response: { 200: indexedResponse({ ...Type.Ref('SessionPendingResponse') }, 'The pending prompt.') },
      },
    },
    async (request, reply) => {
      const { pending, service } = sessionExtrasFor(deps, request.params.cityName);
      const body = await pending.pending(request.params.id);
      setSessionIndexHeaders(reply, service);
      return body;
    },
  );

  app.post(
    '/v0/city/:cityName/session/:id/respond',
    {
      schema: {
        operationId: 'respond-session',
        summary: 'Answer the prompt a session waits on (approve, approve_always, deny, answer)',
        tags,
        params: SessionParams,
        headers: SessionMutationHeaders,
        body: Type.Ref('SessionRespondInputBody'),
        response: {
          202: { description: 'Answered: the prompt cleared.', ...Type.Ref('SessionRespondOutputBody') },
        },
      },
    },
    async (request, reply) => {
      const { pending } = sessionExtrasFor(deps, request.params.cityName);
      const body = request.body as { action: string; request_id?: string; text?: string };
      const id = await pending.respond(request.params.id, body);
      return reply.code(202).send({ status: 'accepted', id });
    },
  );

  app.get(
    '/v0/city/:cityName/pending',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-pending',
        summary: 'Every session of the city that waits on a prompt',
        tags,
        params: CityParams,
        response: {
          200: indexedResponse({ ...Type.Ref('ListBodyCityPendingEntry') }, 'The pending prompts.'),
        },
      },
    },
    async (request, reply) => {
      const { pending, service } = sessionExtrasFor(deps, request.params.cityName);
      const items = await pending.cityPending();
      setSessionIndexHeaders(reply, service);
      return { items, total: items.length };
    },
  );
}
