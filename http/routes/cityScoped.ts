import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { BadRequestError, NotFoundError } from '../../actors/errors.ts';
import {
  CityGetResponse,
  CityNameParams,
  CityPatchInputBody,
  MutationHeaders,
  OKResponseBody,
  StatusBody,
  StatusQuery,
} from '../../schemas/cities.ts';
import {
  ProviderReadinessQuery,
  ProviderReadinessResponse,
  ReadinessQuery,
  ReadinessResponse,
} from '../../schemas/readiness.ts';
import { MAX_WAIT_MS, parseBlockingQuery, waitForJournal } from '../blockingQuery.ts';
import { runningCity } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';

const NOT_RUNNING =
  'Answers 404 `not_found: city not found or not running: <cityName>` while the city is not running.';

/**
 * The typed routes of one city that the supervisor itself serves: detail, status, readiness, stop, and
 * suspend/resume. Each answers 404 while the city is not running.
 */
export function cityScopedRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  const detail = (name: string) => {
    runningCity(deps, name);
    const view = deps.supervisor.cityDetail(name);
    // Stopped between the two reads: the same 404 runningCity gives.
    if (!view) throw new NotFoundError(`city not found or not running: ${name}`);
    return view;
  };

  app.get(
    '/v0/city/:cityName',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name',
        summary: 'Get a city',
        description: NOT_RUNNING,
        tags: ['cities'],
        params: CityNameParams,
        response: { 200: CityGetResponse },
      },
    },
    async (request) => detail(request.params.cityName),
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
        description: `Stops the city's controller and answers once it stopped (\`controller.stopped\` is recorded); the city stays registered and starts again when the supervisor restarts. ${NOT_RUNNING}`,
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

  app.get(
    '/v0/city/:cityName/status',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-status',
        summary: 'City status',
        description: `With \`index\`, waits (up to \`wait\`, default 30s, max 2m) until the city log's head passes it. The X-GC-Index header carries the head. ${NOT_RUNNING}`,
        tags: ['cities'],
        params: CityNameParams,
        querystring: StatusQuery,
        response: { 200: StatusBody },
      },
    },
    async (request, reply) => {
      const { cityName } = request.params;
      const city = runningCity(deps, cityName);
      const blocking = parseBlockingQuery(request.query, MAX_WAIT_MS);
      if (blocking) await waitForJournal(reply, city.journal, blocking);
      const view = detail(cityName);
      reply.header('X-GC-Index', String(await city.journal.head()));
      return {
        name: view.name,
        path: view.path,
        uptime_sec: view.uptime_sec,
        suspended: view.suspended,
        agent_count: view.agent_count,
        rig_count: view.rig_count,
        running: 0,
        agents: { total: view.agent_count, running: 0, suspended: 0, quarantined: 0 },
        rigs: { total: 0, suspended: 0 },
        work: { in_progress: 0, ready: 0, open: 0 },
        mail: { unread: 0, total: 0 },
        ...(view.version ? { version: view.version } : {}),
      };
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
