import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { present } from '../../machines/beads/ready.ts';
import { BeadDependencyBodySchema, BeadSchema } from '../../schemas/beads.ts';
import { CityNameParam, MutationHeaders } from '../../schemas/beadsCommon.ts';
import type { AppDeps } from '../deps.ts';
import { beadStoreFor, setIndexHeaders } from './beadsService.ts';

const tags = ['beads'];

/**
 * Dependency edges over HTTP. Upstream's v0 API has no operation that adds or removes an edge (its
 * formulas write them through the store), so these two are ours, under their own path
 * (`/bead/{id}/deps` already means "children" upstream). See docs/compatibility.md.
 */
export function beadDependencyRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v0/city/:cityName/bead/:id/dependencies',
    {
      schema: {
        operationId: 'add-bead-dependency',
        summary: 'Add a dependency edge (409 when an ordering edge would close a cycle)',
        tags,
        params: Type.Object({
          cityName: CityNameParam,
          id: Type.String({ description: 'Dependent bead ID.' }),
        }),
        headers: MutationHeaders,
        body: BeadDependencyBodySchema,
        response: { 200: BeadSchema },
      },
      // JSON bodies are typed: no coercion, as upstream (`priority: "1"` is a 422).
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const { depends_on_id, type = 'blocks' } = request.body;
      const bead = await store.addDependency(request.params.id, depends_on_id, type);
      setIndexHeaders(reply, store);
      return present(store.model, bead);
    },
  );

  app.delete(
    '/v0/city/:cityName/bead/:id/dependencies/:dependsOnId',
    {
      schema: {
        operationId: 'remove-bead-dependency',
        summary: 'Remove dependency edges (of one kind with ?type=)',
        tags,
        params: Type.Object({
          cityName: CityNameParam,
          id: Type.String({ description: 'Dependent bead ID.' }),
          dependsOnId: Type.String({ description: 'The bead depended upon.' }),
        }),
        querystring: Type.Object(
          { type: Type.Optional(Type.String({ description: 'Only edges of this kind.' })) },
          { additionalProperties: false },
        ),
        headers: MutationHeaders,
        response: { 200: BeadSchema },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const { id, dependsOnId } = request.params;
      const bead = await store.removeDependency(id, dependsOnId, request.query.type || undefined);
      setIndexHeaders(reply, store);
      return present(store.model, bead);
    },
  );
}
