import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import {
  AGENT_ACTIONS,
  type AgentAction,
  type AgentListQuery as ListQuery,
} from '../../actors/agents/index.ts';
import { isGcError } from '../../actors/runtime/errors.ts';
import {
  AGENT_SCHEMAS,
  AgentCreateInputBody,
  AgentListQuery,
  AgentUpdateInputBody,
  AgentUpdateQualifiedInputBody,
} from '../../schemas/agents.ts';
import { indexedResponse } from '../../schemas/beadsCommon.ts';
import { blockingQueryParameters } from '../../schemas/blockingQuery.ts';
import { MutationHeaders, OKResponseBody } from '../../schemas/cities.ts';
import { HeartbeatEvent } from '../../schemas/eventEnvelopes.ts';
import { registerSchemas } from '../../schemas/eventSchemas.ts';
import { MAX_WAIT_MS, parseBlockingQuery, waitForStore } from '../blockingQuery.ts';
import type { AppDeps } from '../deps.ts';
import { agentOutputRoutes } from './agentsOutput.ts';
import {
  AGENT_ROUTE_FORMS,
  AgentCityParams,
  agentName,
  agentTags as tags,
  type AgentPathParams,
} from './agentsParams.ts';
import { agentApiFor, API_ACTOR, present, setAgentIndexHeaders } from './agentsService.ts';

/** Seconds a client should wait before retrying a create whose visibility was not confirmed (503/504). */
export const CREATE_RETRY_AFTER_S = 1;

const ListQuerystring = Type.Object(
  { ...blockingQueryParameters('2m'), ...AgentListQuery.properties },
  { additionalProperties: false },
);

const GetQuery = Type.Object(
  {
    peek: Type.Optional(
      Type.Boolean({ description: 'Fill `last_output` with the last lines of its screen (our addition).' }),
    ),
    extras: Type.Optional(
      Type.Boolean({ description: "Ours: add `work_query`, the agent's work query, when it has one." }),
    ),
  },
  { additionalProperties: false },
);

const ActionParam = Type.Unsafe<AgentAction>({
  type: 'string',
  enum: [...AGENT_ACTIONS],
  description: 'suspend or resume: sets `suspended` in its configuration.',
});

const ok = { 200: { description: 'Done.', ...OKResponseBody } };

/** `running=`/`peek=` blank are absent, as Go reads them (Ajv would refuse a blank enum or boolean). */
function dropBlank(names: string[]) {
  return async (request: FastifyRequest): Promise<void> => {
    const query = request.query as Record<string, unknown>;
    for (const name of names) if (query[name] === '') Reflect.deleteProperty(query, name);
  };
}

/**
 * The agent family under /v0/city/{cityName}: a thin projection over the city's AgentApi
 * (`actors/agents/agentApi.ts`). Each handler validates path, query and body against its schema, calls one
 * facade method with the actor `api`, and answers upstream's body; the facade's errors become Problem
 * Details in http/problem.ts. Paths, operation ids and statuses are upstream's; every per-agent route exists
 * as `/agent/{base}` and `/agent/{dir}/{base}` (the qualified name `dir/base`). Output and its stream are in
 * agentsOutput.ts.
 */
export function agentRoutes(app: FastifyInstance, deps: AppDeps): void {
  // HeartbeatEvent: the output stream's frames refer to it (the event schemas live in their own context).
  registerSchemas(app, [HeartbeatEvent, ...AGENT_SCHEMAS]);

  app.get<{ Params: Static<typeof AgentCityParams>; Querystring: Static<typeof ListQuerystring> }>(
    '/v0/city/:cityName/agents',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-agents',
        summary: 'List agents',
        description:
          'Every agent of the city (pool instances expanded), its configuration merged with its runtime ' +
          'state. With `index`, blocks until the city log passes it or `wait` elapses.',
        tags,
        params: AgentCityParams,
        querystring: ListQuerystring,
        response: { 200: indexedResponse({ ...Type.Ref('ListBodyAgentResponse') }, 'The agents.') },
      },
      preValidation: dropBlank(['running', 'peek']),
    },
    async (request, reply) => {
      const api = agentApiFor(deps, request.params.cityName);
      const { index, wait, pool, rig, running, peek } = request.query;
      const blocking = parseBlockingQuery({ index, wait }, MAX_WAIT_MS);
      if (blocking) await waitForStore(reply, api, blocking);
      const query: ListQuery = {};
      if (present(pool) !== undefined) query.pool = pool;
      if (present(rig) !== undefined) query.rig = rig;
      if (running !== undefined) query.running = running === 'true';
      if (peek !== undefined) query.peek = peek;
      const page = await api.list(query);
      setAgentIndexHeaders(reply, api);
      return page;
    },
  );

  app.post<{ Params: Static<typeof AgentCityParams>; Body: Static<typeof AgentCreateInputBody> }>(
    '/v0/city/:cityName/agents',
    {
      schema: {
        operationId: 'create-agent',
        summary: 'Add an agent to the city configuration',
        description:
          'Adds an `[[agent]]` to city.toml and answers once the agent is visible to the next request. ' +
          'An agent of that name already there is a 409 `conflict:`; an unknown provider a 422 naming ' +
          '`body.provider`. When the agent was stored but its visibility was not confirmed in time, the ' +
          `answer is a 503 or 504 with \`Retry-After: ${CREATE_RETRY_AFTER_S}\`: retry the read, not the create.`,
        tags,
        params: AgentCityParams,
        headers: MutationHeaders,
        body: AgentCreateInputBody,
        response: { 201: { description: 'Created.', ...Type.Ref('AgentCreatedOutputBody') } },
      },
    },
    async (request, reply) => {
      try {
        const api = agentApiFor(deps, request.params.cityName);
        const created = await api.create(request.body, API_ACTOR);
        return await reply.code(201).send(created);
      } catch (err) {
        if (isGcError(err) && (err.status === 503 || err.status === 504)) {
          reply.header('Retry-After', String(CREATE_RETRY_AFTER_S));
        }
        throw err;
      }
    },
  );

  for (const form of AGENT_ROUTE_FORMS) perAgentRoutes(app, deps, form);
  agentOutputRoutes(app, deps);
}

/** GET, PATCH, DELETE and the actions of one agent, in one of the two path forms. */
function perAgentRoutes(app: FastifyInstance, deps: AppDeps, form: (typeof AGENT_ROUTE_FORMS)[number]): void {
  const qualified = form.stem.includes('by-dir');
  const UpdateBody = qualified ? AgentUpdateQualifiedInputBody : AgentUpdateInputBody;

  app.get<{ Params: AgentPathParams; Querystring: Static<typeof GetQuery> }>(
    form.path,
    {
      schema: {
        operationId: `get-v0-city-by-city-name-${form.stem}`,
        summary: `Get ${form.what}`,
        tags,
        params: form.params,
        querystring: GetQuery,
        response: { 200: indexedResponse({ ...Type.Ref('AgentResponse') }, 'The agent.') },
      },
      preValidation: dropBlank(['peek', 'extras']),
    },
    async (request, reply) => {
      const api = agentApiFor(deps, request.params.cityName);
      const { peek, extras } = request.query;
      const view = await api.get(agentName(request.params), {
        ...(peek === undefined ? {} : { peek }),
        ...(extras === true ? { extras } : {}),
      });
      setAgentIndexHeaders(reply, api);
      return view;
    },
  );

  app.patch<{ Params: AgentPathParams; Body: Static<typeof AgentUpdateInputBody> }>(
    form.path,
    {
      schema: {
        operationId: `patch-v0-city-by-city-name-${form.stem}`,
        summary: `Change ${form.what}'s provider, scope or suspension`,
        description: 'Rewrites its `[[agent]]` in city.toml; absent fields are left as they are.',
        tags,
        params: form.params,
        headers: MutationHeaders,
        body: UpdateBody,
        response: ok,
      },
    },
    async (request) => {
      const api = agentApiFor(deps, request.params.cityName);
      await api.update(agentName(request.params), request.body, API_ACTOR);
      return { status: 'ok' };
    },
  );

  app.delete<{ Params: AgentPathParams }>(
    form.path,
    {
      schema: {
        operationId: `delete-v0-city-by-city-name-${form.stem}`,
        summary: `Remove ${form.what} from the city configuration`,
        tags,
        params: form.params,
        headers: MutationHeaders,
        response: ok,
      },
    },
    async (request) => {
      const api = agentApiFor(deps, request.params.cityName);
      await api.remove(agentName(request.params), API_ACTOR);
      return { status: 'ok' };
    },
  );

  app.post<{ Params: AgentPathParams & { action: AgentAction } }>(
    `${form.path}/:action`,
    {
      schema: {
        operationId: `post-v0-city-by-city-name-${form.stem}-by-action`,
        summary: `Suspend or resume ${form.what}`,
        description:
          "Sets `suspended` in the agent's configuration: a suspended agent's sessions are drained and not " +
          'woken. Any other action is a 422 naming `path.action`.',
        tags,
        params: Type.Object({ ...form.params.properties, action: ActionParam }),
        headers: MutationHeaders,
        response: ok,
      },
    },
    async (request) => {
      const api = agentApiFor(deps, request.params.cityName);
      await api.act(agentName(request.params), request.params.action, API_ACTOR);
      return { status: 'ok' };
    },
  );
}
