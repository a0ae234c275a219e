import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { indexedResponse } from '../../schemas/beadsCommon.ts';
import { registerSchemas } from '../../schemas/eventSchemas.ts';
import { SESSION_TRANSCRIPT_SCHEMAS, SessionTranscriptQuery } from '../../schemas/sessionTranscript.ts';
import { sessionAgent, sessionAgents } from '../../actors/sessions/index.ts';
import type { AppDeps } from '../deps.ts';
import { sessionExtrasFor } from './sessionExtras.ts';
import { SessionParams, sessionTags as tags } from './sessionsParams.ts';
import { setSessionIndexHeaders } from './sessionsService.ts';

const present = (value: string | undefined): string | undefined => (value === '' ? undefined : value);

/**
 * `GET /session/{id}/transcript` (a page of the agent's own conversation log) and the sub-agents seen in it,
 * `GET /session/{id}/agents` and `/agents/{agentId}`. Raw frames are the provider's JSON text, written into
 * the body as they are (verbatim, and no parse-and-serialise of a page of large entries).
 */
export function sessionTranscriptRoutes(scope: FastifyInstance, deps: AppDeps): void {
  registerSchemas(scope, SESSION_TRANSCRIPT_SCHEMAS);
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v0/city/:cityName/session/:id/transcript',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-session-by-id-transcript',
        summary: "A page of a session's conversation, read from the agent's own log",
        description:
          'Newest page first: at most `limit` messages (default 500), older ones with `before` = ' +
          '`pagination.truncated_before_message`; `tail` keeps the last N compaction segments; `after` ' +
          'returns the oldest messages after that one. An unknown `before`/`after` is a 404.',
        tags,
        params: SessionParams,
        querystring: SessionTranscriptQuery,
        response: {
          200: indexedResponse({ ...Type.Ref('SessionTranscriptGetResponse') }, 'A transcript page.'),
        },
      },
    },
    async (request, reply) => {
      const { transcripts, service } = sessionExtrasFor(deps, request.params.cityName);
      const q = request.query;
      const result = await transcripts.transcript(request.params.id, {
        ...(present(q.format) !== undefined ? { format: q.format } : {}),
        ...(q.tail !== undefined ? { tail: q.tail } : {}),
        ...(present(q.before) !== undefined ? { before: q.before } : {}),
        ...(present(q.after) !== undefined ? { after: q.after } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
      });
      setSessionIndexHeaders(reply, service);
      const { rawMessages, ...body } = result;
      if (rawMessages === undefined) return body;
      const json = JSON.stringify(body);
      return reply
        .type('application/json; charset=utf-8')
        .send(`${json.slice(0, -1)},"messages":[${rawMessages.join(',')}]}`);
    },
  );

  app.get(
    '/v0/city/:cityName/session/:id/agents',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-session-by-id-agents',
        summary: 'The sub-agents a session started (Claude Task calls with their own logs)',
        tags,
        params: SessionParams,
        response: { 200: indexedResponse({ ...Type.Ref('SessionAgentListResponse') }, 'The sub-agents.') },
      },
    },
    async (request, reply) => {
      const { transcripts, service } = sessionExtrasFor(deps, request.params.cityName);
      const agents = await sessionAgents(transcripts, request.params.id);
      setSessionIndexHeaders(reply, service);
      return { agents };
    },
  );

  app.get(
    '/v0/city/:cityName/session/:id/agents/:agentId',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-session-by-id-agents-by-agent-id',
        summary: "A sub-agent's log entries and status",
        tags,
        params: Type.Object({
          ...SessionParams.properties,
          agentId: Type.String({ description: 'Sub-agent id.' }),
        }),
        response: { 200: indexedResponse({ ...Type.Ref('SessionAgentGetResponse') }, 'The sub-agent.') },
      },
    },
    async (request, reply) => {
      const { transcripts, service } = sessionExtrasFor(deps, request.params.cityName);
      const agent = await sessionAgent(transcripts, request.params.id, request.params.agentId);
      setSessionIndexHeaders(reply, service);
      return reply
        .type('application/json; charset=utf-8')
        .send(`{"messages":[${agent.rawMessages.join(',')}],"status":${JSON.stringify(agent.status)}}`);
    },
  );
}
