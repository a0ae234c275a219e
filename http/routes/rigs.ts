import { stringOf } from '../../schemas/stringOf.ts';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { indexedResponse, MutationHeaders } from '../../schemas/beadsCommon.ts';
import { blockingQueryParameters } from '../../schemas/blockingQuery.ts';
import { OKResponseBody } from '../../schemas/cities.ts';
import { registerSchemas } from '../../schemas/eventSchemas.ts';
import { RIG_ACTIONS, RIG_SCHEMAS, RigCreateInputBody, RigUpdateInputBody } from '../../schemas/rigs.ts';
import { MAX_WAIT_MS, parseBlockingQuery, waitForJournal } from '../blockingQuery.ts';
import { runningCity } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';
import {
  CityParams,
  CONFIG_ACTOR,
  configApiFor,
  NameParams,
  setConfigIndexHeaders,
} from './configService.ts';

const RigParams = NameParams('Rig');
const GitQuery = {
  git: Type.Optional(Type.Boolean({ description: 'Include each rig’s git status.' })),
};
const ListQuery = Type.Object(
  { ...blockingQueryParameters('2m'), ...GitQuery },
  { additionalProperties: false },
);
const GetQuery = Type.Object(GitQuery, { additionalProperties: false });
const ActionParams = Type.Object({
  ...RigParams.properties,
  action: stringOf(RIG_ACTIONS, 'suspend, resume or restart.'),
});
const ok = { 200: { description: 'Done.', ...OKResponseBody } };

/**
 * The rigs family: the repositories a city works on (`[[rigs]]` of city.toml), listed with their agents'
 * counts (and git status on request), created, changed, deleted through the one config writer, and
 * suspended, resumed or restarted.
 */
export function rigRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerSchemas(app, RIG_SCHEMAS);
  const tags = ['rigs'];

  app.get<{ Params: Static<typeof CityParams>; Querystring: Static<typeof ListQuery> }>(
    '/v0/city/:cityName/rigs',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-rigs',
        summary: 'List rigs',
        description:
          'Every rig with its agent and running counts. With `index`, blocks until the city log passes it ' +
          'or `wait` elapses. A rig whose git status cannot be read is named in `partial_errors`.',
        tags,
        params: CityParams,
        querystring: ListQuery,
        response: { 200: indexedResponse({ ...Type.Ref('ListBodyRigResponse') }, 'The rigs.') },
      },
    },
    async (request, reply) => {
      const { index, wait, git } = request.query;
      // A malformed index is refused before anything else, as on every blocking list.
      const blocking = parseBlockingQuery({ index, wait }, MAX_WAIT_MS);
      const api = configApiFor(deps, request.params.cityName);
      if (blocking) await waitForJournal(reply, runningCity(deps, request.params.cityName).journal, blocking);
      const { items, partialErrors } = await api.rigs(git === undefined ? {} : { git });
      setConfigIndexHeaders(reply, api);
      return {
        items,
        total: items.length,
        ...(partialErrors.length > 0 ? { partial: true, partial_errors: partialErrors } : {}),
      };
    },
  );

  app.post<{ Params: Static<typeof CityParams>; Body: Static<typeof RigCreateInputBody> }>(
    '/v0/city/:cityName/rigs',
    {
      schema: {
        operationId: 'create-rig',
        summary: 'Add a rig to city.toml',
        description: 'Appends a `[[rigs]]`. A name in use is a 409 `conflict:`.',
        tags,
        params: CityParams,
        headers: MutationHeaders,
        body: RigCreateInputBody,
        response: { 201: { description: 'Created.', ...Type.Ref('RigCreatedOutputBody') } },
      },
    },
    async (request, reply) => {
      const rig = await configApiFor(deps, request.params.cityName).createRig(request.body, CONFIG_ACTOR);
      return reply.code(201).send({ status: 'created', rig });
    },
  );

  app.get<{ Params: Static<typeof RigParams>; Querystring: Static<typeof GetQuery> }>(
    '/v0/city/:cityName/rig/:name',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-rig-by-name',
        summary: 'Get a rig',
        tags,
        params: RigParams,
        querystring: GetQuery,
        response: { 200: indexedResponse({ ...Type.Ref('RigResponse') }, 'The rig.') },
      },
    },
    async (request, reply) => {
      const api = configApiFor(deps, request.params.cityName);
      const { git } = request.query;
      const body = await api.rig(request.params.name, git === undefined ? {} : { git });
      setConfigIndexHeaders(reply, api);
      return body;
    },
  );

  app.patch<{ Params: Static<typeof RigParams>; Body: Static<typeof RigUpdateInputBody> }>(
    '/v0/city/:cityName/rig/:name',
    {
      schema: {
        operationId: 'patch-v0-city-by-city-name-rig-by-name',
        summary: 'Change a rig',
        description: 'Sets the given keys of its `[[rigs]]`; absent fields are left as they are.',
        tags,
        params: RigParams,
        headers: MutationHeaders,
        body: RigUpdateInputBody,
        response: ok,
      },
    },
    async (request) => {
      await configApiFor(deps, request.params.cityName).updateRig(
        request.params.name,
        request.body,
        CONFIG_ACTOR,
      );
      return { status: 'ok' };
    },
  );

  app.delete<{ Params: Static<typeof RigParams> }>(
    '/v0/city/:cityName/rig/:name',
    {
      schema: {
        operationId: 'delete-v0-city-by-city-name-rig-by-name',
        summary: 'Remove a rig from city.toml',
        tags,
        params: RigParams,
        headers: MutationHeaders,
        response: ok,
      },
    },
    async (request) => {
      await configApiFor(deps, request.params.cityName).deleteRig(request.params.name, CONFIG_ACTOR);
      return { status: 'ok' };
    },
  );

  app.post<{ Params: Static<typeof ActionParams> }>(
    '/v0/city/:cityName/rig/:name/:action',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-rig-by-name-by-action',
        summary: 'Suspend, resume or restart a rig',
        description:
          '`suspend` / `resume` set the rig’s `suspended` (its agents are held, or started again); ' +
          '`restart` stops its agents’ running sessions, which the reconciler starts again, and names ' +
          'them in `killed` (or `failed`). Any other action is a 422 naming `path.action`.',
        tags,
        params: ActionParams,
        headers: MutationHeaders,
        response: { 200: { description: 'Done.', ...Type.Ref('RigActionBody') } },
      },
    },
    async (request) =>
      configApiFor(deps, request.params.cityName).rigAction(
        request.params.name,
        request.params.action,
        CONFIG_ACTOR,
      ),
  );
}
