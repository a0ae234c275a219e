import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

import type { CityMaintenance } from '../../actors/maintenance/index.ts';
import { MAINTENANCE_SERVICE } from '../../actors/maintenance/index.ts';
import { indexedResponse } from '../../schemas/beadsCommon.ts';
import { MutationHeaders } from '../../schemas/cities.ts';
import { registerSchemas } from '../../schemas/eventSchemas.ts';
import { CityParams, MAINTENANCE_SCHEMAS, WaitQuery } from '../../schemas/maintenance.ts';
import { NOT_RUNNING, cityService } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';

/**
 * A running city's maintenance.
 * @throws NotFoundError while the city is not running; UnavailableError (503) when it runs without it.
 */
function maintenanceOf(deps: AppDeps, cityName: string): CityMaintenance {
  return cityService(deps, cityName, MAINTENANCE_SERVICE, 'maintenance');
}

/**
 * Store maintenance (`GET /maintenance/status`, `POST /maintenance/dolt-gc`) and event-log rotation
 * (`POST /events/rotate`). The store is the city's event log: what each stage does to it is in
 * actors/maintenance/ and docs/compatibility.md.
 */
export function maintenanceRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  registerSchemas(app, MAINTENANCE_SCHEMAS);

  app.get(
    '/v0/city/:cityName/maintenance/status',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-maintenance-status',
        summary: 'Store maintenance: enabled, schedule, the run in flight and the last 16 runs',
        description: NOT_RUNNING,
        tags: ['maintenance'],
        params: CityParams,
        response: { 200: indexedResponse({ ...Type.Ref('MaintenanceStatusBody') }, 'The status.', false) },
      },
    },
    async (request, reply) => {
      const maintenance = maintenanceOf(deps, request.params.cityName);
      await maintenance.refresh();
      const body = maintenance.store.status();
      reply.header('X-GC-Cache-Age-S', '0');
      return body;
    },
  );

  app.post(
    '/v0/city/:cityName/maintenance/dolt-gc',
    {
      schema: {
        operationId: 'trigger-maintenance-dolt-gc',
        summary: 'Run store maintenance now (snapshot of the city log, cleanup, smoke test, prune)',
        description:
          'Answers 202 `{accepted, started_at}` at once, or 200 with the finished `run` when `wait=true`; ' +
          'the outcome is also `gc.store.maintenance.done` / `.failed` on the city log. 409 while a run is in ' +
          'flight; 503 `maintenance_disabled:` unless `[maintenance.dolt] enabled = true` in city.toml. ' +
          NOT_RUNNING,
        tags: ['maintenance'],
        headers: MutationHeaders,
        params: CityParams,
        querystring: WaitQuery,
        response: {
          200: { description: 'The run finished (wait=true).', ...Type.Ref('MaintenanceTriggerBody') },
          202: { description: 'The run started.', ...Type.Ref('MaintenanceTriggerBody') },
        },
      },
    },
    async (request, reply) => {
      const maintenance = maintenanceOf(deps, request.params.cityName);
      await maintenance.refresh();
      const { startedAt, done } = maintenance.store.trigger();
      if (!request.query.wait) return reply.code(202).send({ accepted: true, started_at: startedAt });
      return { accepted: true, started_at: startedAt, run: await done };
    },
  );

  app.post(
    '/v0/city/:cityName/events/rotate',
    {
      schema: {
        operationId: 'rotate-events',
        summary: 'Archive the city log since the last rotation and record the events.rotated anchor',
        description:
          'Writes the events since the previous rotation to a gzipped JSON Lines archive and records ' +
          '`events.rotated` (seq continues). The live log is kept whole: the city is a fold of it. Nothing to ' +
          "archive answers `{rotated: false, reason: 'active log is empty'}`. `wait=true` waits (up to 30 s) " +
          `for the archive to be complete. Works on both journal backends. ${NOT_RUNNING}`,
        tags: ['events'],
        headers: MutationHeaders,
        params: CityParams,
        querystring: WaitQuery,
        response: { 200: { description: 'Rotated, or why not.', ...Type.Ref('EventRotateResponse') } },
      },
    },
    async (request) =>
      maintenanceOf(deps, request.params.cityName).rotation.rotate(request.query.wait ?? false),
  );
}
