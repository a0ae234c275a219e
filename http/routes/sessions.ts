import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ValidationError } from '../../actors/runtime/errors.ts';
import { indexedResponse } from '../../schemas/beadsCommon.ts';
import { registerSchemas } from '../../schemas/eventSchemas.ts';
import {
  SESSION_SCHEMAS,
  SessionCreateBody,
  SessionGetQuery,
  SessionListQuery,
  SessionPatchBody,
  SessionPermissionModeBody,
  SessionRenameInputBody,
} from '../../schemas/sessions.ts';
import type { AppDeps } from '../deps.ts';
import { sessionLifecycleRoutes } from './sessionsLifecycle.ts';
import {
  CityParams,
  IdempotentSessionMutationHeaders,
  SessionMutationHeaders,
  SessionParams,
  sessionTags as tags,
} from './sessionsParams.ts';
import { API_CONTEXT, mutationContext, sessionApiFor, setSessionIndexHeaders } from './sessionsService.ts';

const sessionResponse = (description: string) =>
  indexedResponse({ ...Type.Ref('SessionResponse') }, description);

/** A blank query value is absent, as Go reads it (`?state=` filters nothing). */
const present = (value: string | undefined): string | undefined => (value === '' ? undefined : value);

/**
 * The session family under /v0/city/{cityName}: a thin projection over the city's SessionApi
 * (`actors/sessions/sessionApi.ts`). Each handler validates path, query and body against its schema, calls
 * one facade method with the actor `api` (and the request's Idempotency-Key), and answers upstream's body;
 * the facade's errors become Problem Details in http/problem.ts. Paths, operation ids and statuses are
 * upstream's. The reads and the synchronous edits are here; messages, submit and the lifecycle verbs are in
 * sessionsLifecycle.ts.
 */
export function sessionRoutes(scope: FastifyInstance, deps: AppDeps): void {
  registerSchemas(scope, SESSION_SCHEMAS);
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  sessionLifecycleRoutes(scope, deps);

  app.get(
    '/v0/city/:cityName/sessions',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-sessions',
        summary: 'List sessions',
        tags,
        params: CityParams,
        querystring: SessionListQuery,
        response: {
          200: indexedResponse({ ...Type.Ref('ListBodySessionResponse') }, 'A page of sessions.'),
        },
      },
    },
    async (request, reply) => {
      const api = sessionApiFor(deps, request.params.cityName);
      const { state, template, cursor, peek, limit } = request.query;
      const page = await api.list({
        state: present(state),
        template: present(template),
        cursor: present(cursor),
        peek,
        limit,
      });
      setSessionIndexHeaders(reply, api);
      return page;
    },
  );

  app.post(
    '/v0/city/:cityName/sessions',
    {
      schema: {
        operationId: 'create-session',
        summary: 'Create a session (async)',
        description:
          'Answers 202 once the request is accepted; exactly one `request.result.session.create` (carrying ' +
          'the session once it has left `creating`) or `request.failed` with its request_id follows on the ' +
          'city event stream, from `after_seq=<event_cursor>`.',
        tags,
        params: CityParams,
        headers: IdempotentSessionMutationHeaders,
        body: SessionCreateBody,
        response: { 202: { description: 'Accepted.', ...Type.Ref('AsyncAcceptedBody') } },
      },
    },
    async (request, reply) => {
      const { session_name, ...input } = request.body;
      if (session_name !== undefined) {
        throw new ValidationError('validation failed', null, {
          errors: [
            {
              location: 'body.session_name',
              message: 'session_name is deprecated: use alias',
              value: session_name,
            },
          ],
        });
      }
      const api = sessionApiFor(deps, request.params.cityName);
      const accepted = await api.create(input, mutationContext(request));
      return reply.code(202).send(accepted);
    },
  );

  app.get(
    '/v0/city/:cityName/session/:id',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-session-by-id',
        summary: 'Get a session by id, alias or runtime session name',
        tags,
        params: SessionParams,
        querystring: SessionGetQuery,
        response: { 200: sessionResponse('The session.') },
      },
    },
    async (request, reply) => {
      const api = sessionApiFor(deps, request.params.cityName);
      const { peek, peek_lines } = request.query;
      const session = await api.get(request.params.id, {
        ...(peek === undefined ? {} : { peek }),
        ...(peek_lines === undefined ? {} : { peekLines: peek_lines }),
      });
      setSessionIndexHeaders(reply, api);
      return session;
    },
  );

  app.patch(
    '/v0/city/:cityName/session/:id',
    {
      schema: {
        operationId: 'patch-v0-city-by-city-name-session-by-id',
        summary: "Change a session's title or alias",
        tags,
        params: SessionParams,
        headers: SessionMutationHeaders,
        body: SessionPatchBody,
        response: { 200: sessionResponse('The session after the change.') },
      },
    },
    async (request, reply) => {
      const api = sessionApiFor(deps, request.params.cityName);
      const session = await api.patch(request.params.id, request.body, API_CONTEXT);
      setSessionIndexHeaders(reply, api);
      return session;
    },
  );

  app.post(
    '/v0/city/:cityName/session/:id/rename',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-session-by-id-rename',
        summary: 'Retitle a session',
        tags,
        params: SessionParams,
        headers: SessionMutationHeaders,
        body: SessionRenameInputBody,
        response: { 200: sessionResponse('The session after the change.') },
      },
    },
    async (request, reply) => {
      const api = sessionApiFor(deps, request.params.cityName);
      const session = await api.rename(request.params.id, request.body.title, API_CONTEXT);
      setSessionIndexHeaders(reply, api);
      return session;
    },
  );

  app.post(
    '/v0/city/:cityName/session/:id/permission-mode',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-session-by-id-permission-mode',
        summary: "Set a session's permission mode",
        tags,
        params: SessionParams,
        headers: SessionMutationHeaders,
        body: SessionPermissionModeBody,
        response: { 200: sessionResponse('The session after the change.') },
      },
    },
    async (request, reply) => {
      const api = sessionApiFor(deps, request.params.cityName);
      const { permission_mode } = request.body;
      const session = await api.setPermissionMode(request.params.id, permission_mode, API_CONTEXT);
      setSessionIndexHeaders(reply, api);
      return session;
    },
  );
}
