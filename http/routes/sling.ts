import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AGENT_SERVICE } from '../../actors/agents/index.ts';
import { sling, slingDefaultBranch } from '../../actors/sling/index.ts';
import { CityNameParam, MutationHeaders } from '../../schemas/beadsCommon.ts';
import { SlingInputBodySchema, SlingResponseSchema } from '../../schemas/sling.ts';
import { runningCity } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';
import { beadStoreFor } from './beadsService.ts';
import { formulasFor } from './formulas.ts';

const CityParams = Type.Object({ cityName: CityNameParam });

/**
 * `POST /v0/city/{cityName}/sling`: dispatch an existing bead, or a formula's new workflow, to an agent or
 * pool (see actors/sling/sling.ts). 200 for a direct route, 201 for a launch, as upstream answers.
 */
export function slingRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v0/city/:cityName/sling',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-sling',
        summary: 'Dispatch a bead or a formula workflow to an agent or pool',
        tags: ['sling'],
        params: CityParams,
        headers: MutationHeaders,
        body: SlingInputBodySchema,
        response: {
          200: { ...SlingResponseSchema, description: 'A bead routed (mode direct).' },
          201: { ...SlingResponseSchema, description: 'A workflow launched (mode standalone or attached).' },
        },
      },
    },
    async (request, reply) => {
      const { cityName } = request.params;
      const city = runningCity(deps, cityName);
      const store = beadStoreFor(deps, cityName);
      const { status, body } = await sling(
        {
          city: cityName,
          store,
          formulas: () => formulasFor(deps, cityName),
          agents: city.services[AGENT_SERVICE],
          defaultBranch: slingDefaultBranch(city.path),
        },
        request.body,
      );
      reply.code(status);
      return body;
    },
  );
}
