import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { SessionApi } from '../../actors/sessions/index.ts';
import { OkResponseSchema } from '../../schemas/beadsCommon.ts';
import {
  SessionCloseQuery,
  SessionMessageInputBody,
  SessionSubmitInputBody,
} from '../../schemas/sessions.ts';
import type { AppDeps } from '../deps.ts';
import {
  IdempotentSessionMutationHeaders,
  SessionMutationHeaders,
  SessionParams,
  sessionTags as tags,
} from './sessionsParams.ts';
import { API_CONTEXT, mutationContext, sessionApiFor } from './sessionsService.ts';

const accepted = { 202: { description: 'Accepted.', ...Type.Ref('AsyncAcceptedBody') } };

const RESULT_EVENTS =
  'on the city event stream, from `after_seq=<event_cursor>`. An unknown session is a 404 before the 202.';

/** The verbs that answer `{status: "ok", id}`: what each asks of the session service. */
const WITH_ID = [
  ['stop', 'Stop the turn in progress (Escape or Ctrl-C); the session stays'],
  ['kill', "End the session's process; the reconciler restarts it by its rules"],
  ['wake', 'Wake an asleep or suspended session'],
] as const satisfies ReadonlyArray<readonly [keyof SessionApi, string]>;

/**
 * The session family's messages, submit and lifecycle verbs under /v0/city/{cityName}/session/{id}. Messages
 * and submit are asynchronous (202 with upstream's AsyncAcceptedBody, Idempotency-Key forwarded); stop,
 * kill, wake, suspend and close answer when the service has done them.
 */
export function sessionLifecycleRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v0/city/:cityName/session/:id/messages',
    {
      schema: {
        operationId: 'send-session-message',
        summary: 'Send a message to a session (async)',
        description: `Exactly one \`request.result.session.message\` or \`request.failed\` follows ${RESULT_EVENTS}`,
        tags,
        params: SessionParams,
        headers: IdempotentSessionMutationHeaders,
        body: SessionMessageInputBody,
        response: accepted,
      },
    },
    async (request, reply) => {
      const api = sessionApiFor(deps, request.params.cityName);
      const answer = await api.message(request.params.id, request.body.message, mutationContext(request));
      return reply.code(202).send(answer);
    },
  );

  app.post(
    '/v0/city/:cityName/session/:id/submit',
    {
      schema: {
        operationId: 'submit-session',
        summary: 'Submit a user turn to a session, with an intent (async)',
        description: `Exactly one \`request.result.session.submit\` or \`request.failed\` follows ${RESULT_EVENTS}`,
        tags,
        params: SessionParams,
        headers: IdempotentSessionMutationHeaders,
        body: SessionSubmitInputBody,
        response: accepted,
      },
    },
    async (request, reply) => {
      const api = sessionApiFor(deps, request.params.cityName);
      const { message, intent = 'default' } = request.body;
      const answer = await api.submit(request.params.id, message, intent, mutationContext(request));
      return reply.code(202).send(answer);
    },
  );

  for (const [verb, summary] of WITH_ID) {
    app.post(
      `/v0/city/:cityName/session/:id/${verb}`,
      {
        schema: {
          operationId: `post-v0-city-by-city-name-session-by-id-${verb}`,
          summary,
          tags,
          params: SessionParams,
          headers: SessionMutationHeaders,
          response: { 200: { description: '`{status: "ok", id}`.', ...Type.Ref('OKWithIDResponseBody') } },
        },
      },
      async (request) => {
        const id = await sessionApiFor(deps, request.params.cityName)[verb](request.params.id, API_CONTEXT);
        return { status: 'ok', id };
      },
    );
  }

  app.post(
    '/v0/city/:cityName/session/:id/suspend',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-session-by-id-suspend',
        summary: 'Suspend a session: stop its process and keep it from being woken until asked',
        tags,
        params: SessionParams,
        headers: SessionMutationHeaders,
        response: { 200: OkResponseSchema },
      },
    },
    async (request) => {
      await sessionApiFor(deps, request.params.cityName).suspend(request.params.id, API_CONTEXT);
      return { status: 'ok' };
    },
  );

  app.post(
    '/v0/city/:cityName/session/:id/close',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-session-by-id-close',
        summary: 'Close a session (with `delete=true`, also delete its bead)',
        tags,
        params: SessionParams,
        querystring: SessionCloseQuery,
        headers: SessionMutationHeaders,
        response: { 200: OkResponseSchema },
      },
    },
    async (request) => {
      const api = sessionApiFor(deps, request.params.cityName);
      await api.close(request.params.id, { delete: request.query.delete === true }, API_CONTEXT);
      return { status: 'ok' };
    },
  );
}
