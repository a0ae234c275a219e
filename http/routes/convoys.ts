import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { BadRequestError, NotFoundError } from '../../actors/runtime/errors.ts';
import { convoyCheck, convoyDetail, listConvoys } from '../../machines/beads/convoyView.ts';
import { pageSize } from '../../machines/beads/paging.ts';
import { present } from '../../machines/beads/ready.ts';
import { BeadSchema, ListBodyBeadSchema } from '../../schemas/beads.ts';
import {
  CityNameParam,
  indexedResponse,
  MutationHeaders,
  OkResponseSchema,
} from '../../schemas/beadsCommon.ts';
import {
  ConvoyCheckResponseSchema,
  ConvoyCreateBodySchema,
  ConvoyGetResponseSchema,
  ConvoyItemsBodySchema,
  ConvoyListQuerySchema,
} from '../../schemas/convoys.ts';
import type { BeadStore } from '../../actors/beads/index.ts';
import { MAX_WAIT_MS, parseBlockingQuery, waitForStore } from '../blockingQuery.ts';
import type { AppDeps } from '../deps.ts';
import { cursorPosition } from './beadsQueryParams.ts';
import { beadStoreFor, setIndexHeaders } from './beadsService.ts';

const tags = ['convoys'];
const CityParams = Type.Object({ cityName: CityNameParam });
const ConvoyParams = Type.Object({ cityName: CityNameParam, id: Type.String({ description: 'Convoy ID.' }) });

/** The convoy, or 404 when there is no bead `id`, 400 when it is not a convoy. */
function convoyOr404(store: BeadStore, id: string) {
  const bead = store.model.beads.get(id)?.bead;
  if (!bead) throw new NotFoundError(`convoy ${id} not found`);
  const detail = convoyDetail(store.model, id);
  if (!detail) throw new BadRequestError(`bead ${id} is not a convoy`);
  return detail;
}

/**
 * The convoys family under /v0/city/{cityName}: a convoy is a bead of type `convoy` whose members are
 * the beads whose `parent` it is. Create answers the convoy bead (201); add and remove re-parent the
 * items one event each, after checking them all.
 */
export function convoyRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v0/city/:cityName/convoys',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-convoys',
        summary: 'List open convoys (newest first)',
        tags,
        params: CityParams,
        querystring: ConvoyListQuerySchema,
        response: { 200: indexedResponse(ListBodyBeadSchema, 'A page of open convoys, newest first.') },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const { cursor, limit, index, wait } = request.query;
      const before = cursorPosition(cursor);
      const blocking = parseBlockingQuery({ index, wait }, MAX_WAIT_MS);
      if (blocking) await waitForStore(reply, store, blocking);
      const page = listConvoys(store.model, pageSize(limit), before);
      setIndexHeaders(reply, store);
      return {
        items: page.items,
        total: page.total,
        ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
      };
    },
  );

  app.post(
    '/v0/city/:cityName/convoys',
    {
      schema: {
        operationId: 'create-convoy',
        summary: 'Create a convoy of beads',
        tags,
        params: CityParams,
        headers: MutationHeaders,
        body: ConvoyCreateBodySchema,
        response: { 201: indexedResponse(BeadSchema, 'The convoy bead.') },
      },
      // JSON bodies are typed: no coercion, as upstream (`priority: "1"` is a 422).
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const convoy = await store.createConvoy(request.body);
      setIndexHeaders(reply, store).code(201);
      return present(store.model, convoy);
    },
  );

  app.get(
    '/v0/city/:cityName/convoy/:id',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-convoy-by-id',
        summary: 'A convoy, its members and their progress',
        tags,
        params: ConvoyParams,
        response: { 200: indexedResponse(ConvoyGetResponseSchema, 'The convoy, its members and progress.') },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const detail = convoyOr404(store, request.params.id);
      setIndexHeaders(reply, store);
      return detail;
    },
  );

  app.get(
    '/v0/city/:cityName/convoy/:id/check',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-convoy-by-id-check',
        summary: 'Whether every member of a convoy is closed',
        tags,
        params: ConvoyParams,
        response: { 200: indexedResponse(ConvoyCheckResponseSchema, 'Completion of the convoy.') },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      convoyOr404(store, request.params.id);
      setIndexHeaders(reply, store);
      return convoyCheck(store.model, request.params.id)!;
    },
  );

  for (const [url, operationId, mode] of [
    ['/v0/city/:cityName/convoy/:id/add', 'post-v0-city-by-city-name-convoy-by-id-add', 'add'],
    ['/v0/city/:cityName/convoy/:id/remove', 'post-v0-city-by-city-name-convoy-by-id-remove', 'remove'],
  ] as const) {
    app.post(
      url,
      {
        schema: {
          operationId,
          summary: mode === 'add' ? 'Add beads to a convoy' : 'Remove beads from a convoy',
          tags,
          params: ConvoyParams,
          headers: MutationHeaders,
          body: ConvoyItemsBodySchema,
          response: { 200: OkResponseSchema },
        },
        // JSON bodies are typed: no coercion, as upstream (`priority: "1"` is a 422).
      },
      async (request) => {
        const store = beadStoreFor(deps, request.params.cityName);
        const items = request.body.items ?? [];
        if (mode === 'add') await store.addToConvoy(request.params.id, items);
        else await store.removeFromConvoy(request.params.id, items);
        return { status: mode === 'add' ? 'added' : 'removed' };
      },
    );
  }

  for (const [method, url, operationId, command, status] of [
    [
      'POST',
      '/v0/city/:cityName/convoy/:id/close',
      'post-v0-city-by-city-name-convoy-by-id-close',
      'closeConvoy',
      'closed',
    ],
    [
      'DELETE',
      '/v0/city/:cityName/convoy/:id',
      'delete-v0-city-by-city-name-convoy-by-id',
      'deleteConvoy',
      'deleted',
    ],
  ] as const) {
    app.route({
      method,
      url,
      schema: {
        operationId,
        summary: status === 'closed' ? 'Close a convoy' : 'Delete a convoy',
        tags,
        params: ConvoyParams,
        headers: MutationHeaders,
        response: { 200: OkResponseSchema },
      },
      handler: async (request) => {
        await beadStoreFor(deps, request.params.cityName)[command](request.params.id);
        return { status };
      },
    });
  }
}
