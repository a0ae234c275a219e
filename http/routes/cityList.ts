import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { SupervisorCitiesOutputBody } from '../../schemas/cities.ts';
import type { AppDeps } from '../deps.ts';

/** `GET /v0/cities`: every registered city, sorted by name, with its startup state. */
export function cityListRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v0/cities',
    {
      schema: {
        operationId: 'get-v0-cities',
        summary: 'List the cities this supervisor manages',
        description:
          'Sorted by name. `running` turns true once per-city routes are available; while false, `status` is `starting_agents` and `phases_completed` lists the startup phases done so far.',
        tags: ['cities'],
        response: { 200: SupervisorCitiesOutputBody },
      },
    },
    async () => {
      const items = deps.supervisor.listCities();
      return { items, total: items.length };
    },
  );
}
