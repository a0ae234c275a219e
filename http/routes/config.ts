import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { indexedResponse } from '../../schemas/beadsCommon.ts';
import { CONFIG_SCHEMAS } from '../../schemas/config.ts';
import { registerSchemas } from '../../schemas/eventSchemas.ts';
import type { AppDeps } from '../deps.ts';
import { NOT_RUNNING } from '../cityScope.ts';
import { CityParams, configApiFor, setConfigIndexHeaders } from './configService.ts';
import { ExtrasQuery } from './extras.ts';

type Params = { Params: Static<typeof CityParams> };
type WithExtras = Params & { Querystring: Static<typeof ExtrasQuery> };

/**
 * The config family (GET /config, /config/defaults, /config/explain, /config/validate) and GET /packs:
 * read-only views of the city's effective configuration, composed from builtin defaults, packs, city.toml
 * and its patches (actors/config/).
 */
export function configRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerSchemas(app, CONFIG_SCHEMAS);
  const tags = ['config'];

  app.get<Params>(
    '/v0/city/:cityName/config',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-config',
        summary: 'The effective configuration',
        description: `The city's configuration with its packs and patches applied. ${NOT_RUNNING}`,
        tags,
        params: CityParams,
        response: { 200: indexedResponse({ ...Type.Ref('ConfigResponse') }, 'The effective configuration.') },
      },
    },
    async (request, reply) => {
      const api = configApiFor(deps, request.params.cityName);
      const body = await api.config();
      setConfigIndexHeaders(reply, api);
      return body;
    },
  );

  app.get<Params>(
    '/v0/city/:cityName/config/defaults',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-config-defaults',
        summary: 'The builtin defaults',
        description:
          'What the city would have with an empty city.toml: the builtin providers, no agent, no rig.',
        tags,
        params: CityParams,
        response: { 200: indexedResponse({ ...Type.Ref('ConfigResponse') }, 'The defaults.') },
      },
    },
    async (request, reply) => {
      const api = configApiFor(deps, request.params.cityName);
      setConfigIndexHeaders(reply, api);
      return api.defaults();
    },
  );

  app.get<WithExtras>(
    '/v0/city/:cityName/config/explain',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-config-explain',
        summary: 'Where each value comes from',
        description:
          'Each agent (`inline` in city.toml or `pack-derived`) and provider (`builtin`, `city`, ' +
          '`builtin+city`) with its origin and the patch counts. Ours: `?extras=true` adds `sources`, the ' +
          'layer (default, pack, city, patch) and file of every value.',
        tags,
        params: CityParams,
        querystring: ExtrasQuery,
        response: { 200: indexedResponse({ ...Type.Ref('ConfigExplainResponse') }, 'The explanation.') },
      },
    },
    async (request, reply) => {
      const api = configApiFor(deps, request.params.cityName);
      const { sources, ...body } = await api.explain();
      setConfigIndexHeaders(reply, api);
      return request.query.extras === true ? { ...body, sources } : body;
    },
  );

  app.get<WithExtras>(
    '/v0/city/:cityName/config/validate',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-config-validate',
        summary: 'Check the configuration',
        description:
          'Every problem of city.toml and its packs as it is on disk now, each as `<file>: <field>: <message>`; ' +
          'a file that is not valid TOML has one error naming its line. Ours: `?extras=true` adds ' +
          '`problems`, the same problems structured.',
        tags,
        params: CityParams,
        querystring: ExtrasQuery,
        response: { 200: { description: 'The problems.', ...Type.Ref('ConfigValidateOutputBody') } },
      },
    },
    async (request) => {
      const { problems, ...body } = await configApiFor(deps, request.params.cityName).validate();
      return request.query.extras === true ? { ...body, problems } : body;
    },
  );

  app.get<Params>(
    '/v0/city/:cityName/packs',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-packs',
        summary: 'The packs of the city',
        description:
          'Each `[packs.<name>]` (fetched into .gc/cache/packs/<name> when the city starts), each local ' +
          '`workspace.includes` pack, and the city’s own pack.toml.',
        tags: ['packs'],
        params: CityParams,
        response: { 200: { description: 'The packs.', ...Type.Ref('PackListBody') } },
      },
    },
    async (request) => ({ packs: await configApiFor(deps, request.params.cityName).packs() }),
  );
}
