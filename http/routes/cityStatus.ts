import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { UnavailableError } from '../../actors/runtime/errors.ts';
import {
  mailCounts,
  workCounts,
  type MailCounts,
  type WorkCounts,
} from '../../machines/beads/statusCounts.ts';
import { indexedResponse } from '../../schemas/beadsCommon.ts';
import { CityNameParams, HealthOutputBody, StatusBody, StatusQuery } from '../../schemas/cities.ts';
import { MAX_WAIT_MS, parseBlockingQuery, waitForJournal } from '../blockingQuery.ts';
import { NOT_RUNNING, runningCity, runningCityDetail } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';
import { beadStoreFor } from './beadsService.ts';
import { cityCounts } from './cityCounts.ts';
import { statusDetails } from './cityStatusDetails.ts';

interface StatusCounts {
  work: WorkCounts;
  mail: MailCounts;
  partial?: true;
  partial_errors?: string[];
}

/**
 * The work and mail counts of a running city, from its bead store's read model. A city running without
 * its bead store (its start-up phase has not run, or failed) counts zero and says so, as upstream's
 * best-effort status does, rather than failing the whole status.
 */
function statusCounts(deps: AppDeps, cityName: string): StatusCounts {
  try {
    const store = beadStoreFor(deps, cityName);
    return { work: workCounts(store.model, store.now()), mail: mailCounts(store.model) };
  } catch (err) {
    if (!(err instanceof UnavailableError)) throw err;
    return {
      work: { in_progress: 0, ready: 0, open: 0 },
      mail: { unread: 0, total: 0 },
      partial: true,
      partial_errors: [`work and mail: bead store is not started for city ${cityName}`],
    };
  }
}

/** `GET /v0/city/{cityName}/status` and `GET /v0/city/{cityName}/health`. */
export function cityStatusRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v0/city/:cityName/status',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-status',
        summary: 'City status',
        description: `Work counts (open and in-progress work beads, and the ready set of \`GET /beads/ready\`; messages and convoys are not work) and mail counts (open messages, unread among them) come from the city's bead store; agent counts from its agents as \`GET /agents\` lists them (running, suspended, quarantined), rig counts from its effective config. With \`index\`, waits (up to \`wait\`, default 30s, max 2m) until the city log's head passes it. The X-GC-Index header carries the head. ${NOT_RUNNING}`,
        tags: ['cities'],
        params: CityNameParams,
        querystring: StatusQuery,
        response: { 200: indexedResponse(StatusBody, 'The city status.') },
      },
    },
    async (request, reply) => {
      const { cityName } = request.params;
      const city = runningCity(deps, cityName);
      const blocking = parseBlockingQuery(request.query, MAX_WAIT_MS);
      if (blocking) await waitForJournal(reply, city.journal, blocking);
      const view = runningCityDetail(deps, cityName);
      // Upstream declares both headers; the cache age is 0: the counts are read live.
      reply.header('X-GC-Index', String(await city.journal.head())).header('X-GC-Cache-Age-S', '0');
      const counts = await cityCounts(deps, cityName, view.agent_count);
      const { partial_errors: storeErrors = [], ...store } = statusCounts(deps, cityName);
      const errors = [...storeErrors, ...counts.errors];
      const details = await statusDetails(deps, cityName);
      return {
        name: view.name,
        path: view.path,
        uptime_sec: view.uptime_sec,
        suspended: view.suspended,
        // Upstream's deprecated aliases of agents.total, rigs.total and agents.running.
        agent_count: counts.agents.total,
        rig_count: counts.rigs.total,
        running: counts.agents.running,
        agents: counts.agents,
        rigs: counts.rigs,
        ...store,
        ...(counts.agentDetails ? { agent_details: counts.agentDetails } : {}),
        ...details,
        ...(errors.length > 0 ? { partial: true as const, partial_errors: errors } : {}),
        ...(view.version ? { version: view.version } : {}),
      };
    },
  );

  app.get(
    '/v0/city/:cityName/health',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-health',
        summary: 'Health of one city',
        description: `\`{status: "ok", city, version, uptime_sec}\` while the city runs (dashboards read it to show the supervisor online). ${NOT_RUNNING}`,
        tags: ['cities'],
        params: CityNameParams,
        response: { 200: HealthOutputBody },
      },
    },
    async (request) => {
      const view = runningCityDetail(deps, request.params.cityName);
      return {
        status: 'ok',
        version: view.version ?? deps.supervisor.version,
        city: view.name,
        uptime_sec: view.uptime_sec,
      };
    },
  );
}
