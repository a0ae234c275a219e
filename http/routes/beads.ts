import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { present } from '../../machines/beads/ready.ts';
import {
  BeadAssignBodySchema,
  BeadAssignResponseSchema,
  BeadCreateBodySchema,
  BeadSchema,
  BeadUpdateBodySchema,
} from '../../schemas/beads.ts';
import {
  CityNameParam,
  IdempotentMutationHeaders,
  MutationHeaders,
  indexedResponse,
  OkResponseSchema,
} from '../../schemas/beadsCommon.ts';
import type { AppDeps } from '../deps.ts';
import { beadClaimRoutes } from './beadsClaim.ts';
import { beadDependencyRoutes } from './beadsDependencies.ts';
import { beadQueryRoutes } from './beadsQueries.ts';
import { beadStoreFor, setIndexHeaders } from './beadsService.ts';

const BeadParams = Type.Object({ cityName: CityNameParam, id: Type.String({ description: 'Bead ID.' }) });
const tags = ['beads'];

/**
 * The beads family under /v0/city/{cityName}: create (with Idempotency-Key), update/patch, close,
 * reopen, delete, assign; the queries (list, ready, deps, graph) and our dependency-edge routes are
 * registered from their own files. Paths, operation ids and statuses are upstream's.
 */
export function beadRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  beadQueryRoutes(scope, deps);
  beadDependencyRoutes(scope, deps);
  beadClaimRoutes(scope, deps);

  app.post(
    '/v0/city/:cityName/beads',
    {
      schema: {
        operationId: 'create-bead',
        summary: 'Create a bead',
        tags,
        params: Type.Object({ cityName: CityNameParam }),
        headers: IdempotentMutationHeaders,
        body: BeadCreateBodySchema,
        response: { 201: indexedResponse(BeadSchema, 'The created bead.') },
      },
      // JSON bodies are typed: no coercion, as upstream (`priority: "1"` is a 422).
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const { bead } = await store.create(request.body, {
        idempotencyKey: request.headers['idempotency-key'],
      });
      setIndexHeaders(reply, store).code(201);
      return present(store.model, bead);
    },
  );

  for (const [method, url, operationId] of [
    ['PATCH', '/v0/city/:cityName/bead/:id', 'patch-v0-city-by-city-name-bead-by-id'],
    ['POST', '/v0/city/:cityName/bead/:id/update', 'post-v0-city-by-city-name-bead-by-id-update'],
  ] as const) {
    app.route({
      method,
      url,
      schema: {
        operationId,
        summary: 'Update a bead',
        tags,
        params: BeadParams,
        headers: MutationHeaders,
        body: BeadUpdateBodySchema,
        response: { 200: OkResponseSchema },
      },
      // JSON bodies are typed: no coercion, as upstream (`priority: "1"` is a 422).
      handler: async (request) => {
        await beadStoreFor(deps, request.params.cityName).update(request.params.id, request.body);
        return { status: 'updated' };
      },
    });
  }

  const simple = [
    [
      'POST',
      '/v0/city/:cityName/bead/:id/close',
      'post-v0-city-by-city-name-bead-by-id-close',
      'close',
      'closed',
    ],
    [
      'POST',
      '/v0/city/:cityName/bead/:id/reopen',
      'post-v0-city-by-city-name-bead-by-id-reopen',
      'reopen',
      'reopened',
    ],
    ['DELETE', '/v0/city/:cityName/bead/:id', 'delete-v0-city-by-city-name-bead-by-id', 'delete', 'deleted'],
  ] as const;
  for (const [method, url, operationId, command, status] of simple) {
    app.route({
      method,
      url,
      schema: {
        operationId,
        summary: `${command[0]!.toUpperCase()}${command.slice(1)} a bead`,
        tags,
        params: BeadParams,
        headers: MutationHeaders,
        response: { 200: OkResponseSchema },
      },
      handler: async (request) => {
        await beadStoreFor(deps, request.params.cityName)[command](request.params.id);
        return { status };
      },
    });
  }

  app.post(
    '/v0/city/:cityName/bead/:id/assign',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-bead-by-id-assign',
        summary: 'Assign a bead to an agent or session',
        tags,
        params: BeadParams,
        headers: MutationHeaders,
        body: BeadAssignBodySchema,
        response: { 200: indexedResponse(BeadAssignResponseSchema, '`{status: "assigned", assignee}`.') },
      },
      // JSON bodies are typed: no coercion, as upstream (`priority: "1"` is a 422).
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const bead = await store.assign(request.params.id, request.body.assignee ?? '');
      setIndexHeaders(reply, store);
      return { status: 'assigned', assignee: bead.assignee ?? '' };
    },
  );
}
