import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { BadRequestError } from '../../actors/runtime/errors.ts';
import {
  CityGetResponse,
  CityNameParams,
  CityPatchInputBody,
  MutationHeaders,
  OKResponseBody,
} from '../../schemas/cities.ts';
import {
  ProviderReadinessQuery,
  ProviderReadinessResponse,
  ReadinessQuery,
  ReadinessResponse,
} from '../../schemas/readiness.ts';
import { NOT_RUNNING, runningCity, runningCityDetail } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';
import { cityCounts } from './cityCounts.ts';

/**
 * The typed routes of one city that the supervisor itself serves: detail, readiness, stop, and
 * suspend/resume (status and health are in cityStatus.ts). Each answers 404 while the city is not running.
 */
export function cityScopedRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v0/city/:cityName',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name',
        summary: 'Get a city',
        description: `\`agent_count\` and \`rig_count\` are the agents and rigs its effective config declares. ${NOT_RUNNING}`,
        tags: ['cities'],
        params: CityNameParams,
        response: { 200: CityGetResponse },
      },
    },
    async (request) => {
      const view = runningCityDetail(deps, request.params.cityName);
      const counts = await cityCounts(deps, view.name, view.agent_count);
      return { ...view, agent_count: counts.configuredAgents, rig_count: counts.rigs.total };
    },
  );

  app.patch(
    '/v0/city/:cityName',
    {
      schema: {
        operationId: 'patch-v0-city-by-city-name',
        summary: 'Suspend or resume a city',
        description: `\`{"suspended": true|false}\` records \`city.suspended\` / \`city.resumed\`; an empty body is 400 \`no fields to update\`. ${NOT_RUNNING}`,
        tags: ['cities'],
        headers: MutationHeaders,
        params: CityNameParams,
        body: CityPatchInputBody,
        response: { 200: OKResponseBody },
      },
    },
    async (request) => {
      const { cityName } = request.params;
      runningCity(deps, cityName);
      const suspended = request.body.suspended;
      if (suspended === undefined) throw new BadRequestError('no fields to update', null);
      await deps.supervisor.setSuspended(cityName, suspended);
      return { status: 'ok' };
    },
  );

  app.post(
    '/v0/city/:cityName/stop',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-stop',
        summary: 'Stop a city',
        description: `Stops the city's controller and answers once it stopped (\`controller.stopped\` is recorded); the city stays registered and starts again on \`POST /v0/city/{cityName}/start\` or when the supervisor restarts. ${NOT_RUNNING}`,
        tags: ['cities'],
        headers: MutationHeaders,
        params: CityNameParams,
        response: { 200: OKResponseBody },
      },
    },
    async (request) => {
      runningCity(deps, request.params.cityName);
      await deps.supervisor.stopCity(request.params.cityName);
      return { status: 'ok' };
    },
  );

  app.post(
    '/v0/city/:cityName/start',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-start',
        summary: 'Start a stopped city (ours)',
        description:
          "Starts a registered city that was stopped (or whose start failed) again and answers once its controller runs (`controller.started` is recorded); a running city answers at once. 404 when the city is not registered; 503 with the start's error when it fails.",
        tags: ['cities'],
        headers: MutationHeaders,
        params: CityNameParams,
        response: { 200: OKResponseBody },
      },
    },
    async (request) => {
      await deps.supervisor.startCity(request.params.cityName);
      return { status: 'ok' };
    },
  );

  app.get(
    '/v0/city/:cityName/readiness',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-readiness',
        summary: 'Readiness of providers and tools for a city',
        description: `Unknown items are 400. ${NOT_RUNNING}`,
        tags: ['cities'],
        params: CityNameParams,
        querystring: ReadinessQuery,
        response: { 200: ReadinessResponse },
      },
    },
    async (request) => {
      runningCity(deps, request.params.cityName);
      return {
        items: await deps.supervisor.readiness.items(request.query.items, request.query.fresh ?? false),
      };
    },
  );

  app.get(
    '/v0/city/:cityName/provider-readiness',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-provider-readiness',
        summary: 'Provider readiness for a city',
        description: `Unknown providers are 400. ${NOT_RUNNING}`,
        tags: ['cities'],
        params: CityNameParams,
        querystring: ProviderReadinessQuery,
        response: { 200: ProviderReadinessResponse },
      },
    },
    async (request) => {
      runningCity(deps, request.params.cityName);
      const providers = await deps.supervisor.readiness.providers(
        request.query.providers,
        request.query.fresh ?? false,
      );
      return { providers };
    },
  );
}
