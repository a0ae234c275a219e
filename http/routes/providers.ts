import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { indexedResponse, MutationHeaders } from '../../schemas/beadsCommon.ts';
import { OKResponseBody } from '../../schemas/cities.ts';
import { registerSchemas } from '../../schemas/eventSchemas.ts';
import {
  PROVIDER_SCHEMAS,
  ProviderCreateInputBody,
  ProviderUpdateInputBody,
} from '../../schemas/providers.ts';
import type { AppDeps } from '../deps.ts';
import {
  CityParams,
  CONFIG_ACTOR,
  configApiFor,
  NameParams,
  setConfigIndexHeaders,
} from './configService.ts';

const ProviderParams = NameParams('Provider');
type City = { Params: Static<typeof CityParams> };
type One = { Params: Static<typeof ProviderParams> };
const ok = { 200: { description: 'Done.', ...OKResponseBody } };

/**
 * The providers family: the builtin presets (upstream's list plus our `mock`) and the city's own
 * `[providers.<name>]`, listed, read, created, changed and deleted through the one config writer.
 */
export function providerRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerSchemas(app, PROVIDER_SCHEMAS);
  const tags = ['providers'];

  app.get<City>(
    '/v0/city/:cityName/providers',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-providers',
        summary: 'List providers',
        description: 'The builtins in upstream’s order (then `mock`), then the city’s own by name.',
        tags,
        params: CityParams,
        response: { 200: indexedResponse({ ...Type.Ref('ListBodyProviderResponse') }, 'The providers.') },
      },
    },
    async (request, reply) => {
      const api = configApiFor(deps, request.params.cityName);
      const items = await api.providers();
      setConfigIndexHeaders(reply, api);
      return { items, total: items.length };
    },
  );

  app.get<City>(
    '/v0/city/:cityName/providers/public',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-providers-public',
        summary: 'List providers (browser-safe)',
        description: 'Names and display names only: no command, argument or environment.',
        tags,
        params: CityParams,
        response: {
          200: indexedResponse({ ...Type.Ref('ProviderPublicListBody') }, 'The providers.', true),
        },
      },
    },
    async (request, reply) => {
      const api = configApiFor(deps, request.params.cityName);
      const items = await api.publicProviders();
      setConfigIndexHeaders(reply, api);
      return { items, total: items.length };
    },
  );

  app.post<City & { Body: Static<typeof ProviderCreateInputBody> }>(
    '/v0/city/:cityName/providers',
    {
      schema: {
        operationId: 'create-provider',
        summary: 'Add a provider to city.toml',
        description:
          'Writes `[providers.<name>]`. A name in use (a builtin included) is a 409 `conflict:`; a provider ' +
          'without `command` or `base` a 422 naming `body.command`.',
        tags,
        params: CityParams,
        headers: MutationHeaders,
        body: ProviderCreateInputBody,
        response: { 201: { description: 'Created.', ...Type.Ref('ProviderCreatedOutputBody') } },
      },
    },
    async (request, reply) => {
      const name = await configApiFor(deps, request.params.cityName).createProvider(
        request.body,
        CONFIG_ACTOR,
      );
      return reply.code(201).send({ status: 'created', provider: name });
    },
  );

  app.get<One>(
    '/v0/city/:cityName/provider/:name',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-provider-by-name',
        summary: 'Get a provider',
        description: 'Its effective spec (its `base` chain flattened, patches applied).',
        tags,
        params: ProviderParams,
        response: { 200: indexedResponse({ ...Type.Ref('ProviderResponse') }, 'The provider.') },
      },
    },
    async (request, reply) => {
      const api = configApiFor(deps, request.params.cityName);
      const body = await api.provider(request.params.name);
      setConfigIndexHeaders(reply, api);
      return body;
    },
  );

  app.patch<One & { Body: Static<typeof ProviderUpdateInputBody> }>(
    '/v0/city/:cityName/provider/:name',
    {
      schema: {
        operationId: 'patch-v0-city-by-city-name-provider-by-name',
        summary: 'Change a provider',
        description:
          'Sets the given keys of `[providers.<name>]` (a builtin gets a city override); absent fields are ' +
          'left as they are, a `null` list removes its key.',
        tags,
        params: ProviderParams,
        headers: MutationHeaders,
        body: ProviderUpdateInputBody,
        response: ok,
      },
    },
    async (request) => {
      const api = configApiFor(deps, request.params.cityName);
      await api.updateProvider(request.params.name, request.body, CONFIG_ACTOR);
      return { status: 'ok' };
    },
  );

  app.delete<One>(
    '/v0/city/:cityName/provider/:name',
    {
      schema: {
        operationId: 'delete-v0-city-by-city-name-provider-by-name',
        summary: 'Delete a provider',
        description:
          'Removes `[providers.<name>]` from city.toml. A builtin cannot be deleted (409); deleting a ' +
          'builtin’s city override restores the builtin. A provider agents still use is a 422.',
        tags,
        params: ProviderParams,
        headers: MutationHeaders,
        response: ok,
      },
    },
    async (request) => {
      await configApiFor(deps, request.params.cityName).deleteProvider(request.params.name, CONFIG_ACTOR);
      return { status: 'ok' };
    },
  );
}
