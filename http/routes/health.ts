import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppDeps } from '../deps.ts';

const SupervisorStartup = Type.Object(
  {
    ready: Type.Boolean({ description: 'True when the city is running.' }),
    phase: Type.Optional(Type.String({ description: 'Current phase (when not ready).' })),
    phases_completed: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  },
  { additionalProperties: false, title: 'SupervisorStartup' },
);

/** `GET /health`: the liveness probe (the only typed path outside `/v0`), upstream's SupervisorHealthOutputBody. */
export function healthRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get(
    '/health',
    {
      schema: {
        operationId: 'get-health',
        summary: 'Liveness probe',
        description: '`startup` describes the first city (by name), for single-city deployments.',
        tags: ['supervisor'],
        response: {
          200: Type.Object(
            {
              status: Type.String(),
              version: Type.String(),
              uptime_sec: Type.Integer(),
              cities_total: Type.Integer(),
              cities_running: Type.Integer(),
              startup: Type.Optional(SupervisorStartup),
              journal: Type.String({ description: 'Journal backend: file or jetstream.' }),
            },
            { title: 'SupervisorHealthOutputBody' },
          ),
        },
      },
    },
    async () => {
      const sup = deps.supervisor;
      const cities = sup.listCities();
      const first = cities[0];
      return {
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
        journal: deps.config.natsUrl ? 'jetstream' : 'file',
      };
    },
  );
}
