import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { buildId } from '../buildId.ts';
import type { AppDeps } from '../deps.ts';
import { ExtrasQuery } from './extras.ts';

const SupervisorStartup = Type.Object(
  {
    ready: Type.Boolean({ description: 'True when the city is running.' }),
    phase: Type.Optional(Type.String({ description: 'Current phase (when not ready).' })),
    phases_completed: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  },
  { additionalProperties: false, title: 'SupervisorStartup' },
);

/**
 * `GET /health`: the liveness probe (the only typed path outside `/v0`), upstream's
 * SupervisorHealthOutputBody. Our `journal` (the backend) comes only with `?extras=true`: upstream's schema
 * is closed, so a strict client of the default answer must not see it.
 */
export function healthRoutes(app: FastifyInstance, deps: AppDeps): void {
  const build = buildId();
  app.get<{ Querystring: Static<typeof ExtrasQuery> }>(
    '/health',
    {
      schema: {
        operationId: 'get-health',
        summary: 'Liveness probe',
        description:
          '`startup` describes the first city (by name), for single-city deployments. `build_id` changes with ' +
          'the build. Ours: `?extras=true` adds `journal` (the journal backend).',
        tags: ['supervisor'],
        querystring: ExtrasQuery,
        response: {
          200: Type.Object(
            {
              build_id: Type.Optional(
                Type.String({
                  description: 'Build identity: a short git commit, `-dirty` when unclean; empty if unknown.',
                }),
              ),
              status: Type.String(),
              version: Type.String(),
              uptime_sec: Type.Integer(),
              cities_total: Type.Integer(),
              cities_running: Type.Integer(),
              startup: Type.Optional(SupervisorStartup),
              journal: Type.Optional(
                Type.String({ description: 'Ours, with `?extras=true`: file or jetstream.' }),
              ),
            },
            { title: 'SupervisorHealthOutputBody' },
          ),
        },
      },
    },
    async (request) => {
      const sup = deps.supervisor;
      const cities = sup.listCities();
      const first = cities[0];
      return {
        build_id: build,
        status: 'ok',
        version: sup.version,
        uptime_sec: Math.floor((Date.now() - sup.startedAt.getTime()) / 1000),
        cities_total: cities.length,
        cities_running: cities.filter((c) => c.running).length,
        ...(first && {
          startup: first.running
            ? { ready: true, phases_completed: first.phases_completed }
            : { ready: false, phase: first.status, phases_completed: first.phases_completed },
        }),
        ...(request.query.extras === true && { journal: deps.config.natsUrl ? 'jetstream' : 'file' }),
      };
    },
  );
}
