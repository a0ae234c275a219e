import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';

import type { LiveCity } from '../../actors/supervisor/liveCities.ts';
import { WORKSPACE_SERVICES } from '../../actors/workspaceServices/index.ts';
import type { WorkspaceServices } from '../../actors/workspaceServices/index.ts';
import { indexedResponse } from '../../schemas/beadsCommon.ts';
import { CityNameParams, MutationHeaders } from '../../schemas/cities.ts';
import { registerSchemas } from '../../schemas/eventSchemas.ts';
import { ServiceParams, WORKSPACE_SERVICE_SCHEMAS } from '../../schemas/workspaceServices.ts';
import { NOT_RUNNING, cityService, runningCity } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';

const tags = ['services'];

/**
 * A running city and its workspace services.
 * @throws NotFoundError while the city is not running; UnavailableError (503) when it runs without them.
 */
function servicesOf(deps: AppDeps, cityName: string): { city: LiveCity; services: WorkspaceServices } {
  const services = cityService(deps, cityName, WORKSPACE_SERVICES, 'workspace services');
  return { city: runningCity(deps, cityName), services };
}

/** `X-GC-Index` (the city log's head) and `X-GC-Cache-Age-S` (0: the states are live). */
const indexHeaders = (reply: FastifyReply, city: LiveCity): FastifyReply =>
  reply.header('X-GC-Index', String(city.log.head)).header('X-GC-Cache-Age-S', '0');

/**
 * The services family: `GET /services`, `GET /service/{name}` and `POST /service/{name}/restart` over the
 * city's workspace services (`[[service]]` in city.toml, run as supervised processes). An unknown service
 * is `404 not_found: service <name> not found`.
 */
export function serviceRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  registerSchemas(app, WORKSPACE_SERVICE_SCHEMAS);

  app.get(
    '/v0/city/:cityName/services',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-services',
        summary: "The city's workspace services and their states",
        description: NOT_RUNNING,
        tags,
        params: CityNameParams,
        response: {
          200: indexedResponse({ ...Type.Ref('ListBodyStatus') }, 'Every service, in city.toml order.'),
        },
      },
    },
    async (request, reply) => {
      const { city, services } = servicesOf(deps, request.params.cityName);
      const items = services.list();
      indexHeaders(reply, city);
      return { items, total: items.length };
    },
  );

  app.get(
    '/v0/city/:cityName/service/:name',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-service-by-name',
        summary: 'One workspace service and its state',
        description: `An unknown service is 404. ${NOT_RUNNING}`,
        tags,
        params: ServiceParams,
        response: { 200: indexedResponse({ ...Type.Ref('Status') }, 'The service.') },
      },
    },
    async (request, reply) => {
      const { city, services } = servicesOf(deps, request.params.cityName);
      const status = services.get(request.params.name);
      indexHeaders(reply, city);
      return status;
    },
  );

  app.post(
    '/v0/city/:cityName/service/:name/restart',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-service-by-name-restart',
        summary: "Restart a workspace service's process",
        description:
          'Stops the process (`service.stopped`, reason restart) and starts a fresh one with its failure count ' +
          'reset; answers once the new one is ready or has failed (`GET /service/{name}` says which). ' +
          `An unknown service is 404. ${NOT_RUNNING}`,
        tags,
        headers: MutationHeaders,
        params: ServiceParams,
        response: { 200: { description: 'Restarted.', ...Type.Ref('ServiceRestartOutputBody') } },
      },
    },
    async (request) => {
      const { services } = servicesOf(deps, request.params.cityName);
      await services.restart(request.params.name);
      return { status: 'ok', action: 'restart', service: request.params.name };
    },
  );
}
