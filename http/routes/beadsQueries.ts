import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { NotFoundError } from '../../actors/runtime/errors.ts';
import { pageSize } from '../../machines/beads/paging.ts';
import { childrenOf, graphOf, listBeads } from '../../machines/beads/queries.ts';
import { present, readyBeads } from '../../machines/beads/ready.ts';
import {
  BeadDepsResponseSchema,
  BeadGraphResponseSchema,
  BeadListQuerySchema,
  BeadSchema,
  ListBodyBeadSchema,
} from '../../schemas/beads.ts';
import { blockingQueryProperties, CityNameParam, indexedResponse } from '../../schemas/beadsCommon.ts';
import { MAX_WAIT_MS, parseBlockingQuery, waitForStore } from '../blockingQuery.ts';
import type { AppDeps } from '../deps.ts';
import { cursorPosition } from './beadsQueryParams.ts';
import { beadStoreFor, setIndexHeaders } from './beadsService.ts';

const tags = ['beads'];
const BeadParams = Type.Object({ cityName: CityNameParam, id: Type.String({ description: 'Bead ID.' }) });

/** The beads family's reads: list (filters, cursor paging, blocking), ready, get, deps, graph. */
export function beadQueryRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v0/city/:cityName/beads',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-beads',
        summary: 'List beads (newest first)',
        tags,
        params: Type.Object({ cityName: CityNameParam }),
        querystring: BeadListQuerySchema,
        response: { 200: indexedResponse(ListBodyBeadSchema, 'A page of beads, newest first.') },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const { cursor, limit, index, wait, ...filter } = request.query;
      const before = cursorPosition(cursor);
      const blocking = parseBlockingQuery({ index, wait }, MAX_WAIT_MS);
      if (blocking) await waitForStore(reply, store, blocking);
      const page = listBeads(store.model, filter, pageSize(limit), before);
      setIndexHeaders(reply, store);
      return {
        items: page.items,
        total: page.total,
        ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
      };
    },
  );

  app.get(
    '/v0/city/:cityName/beads/ready',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-beads-ready',
        summary: 'List ready beads: open, actionable, unblocked, not deferred',
        tags,
        params: Type.Object({ cityName: CityNameParam }),
        querystring: Type.Object(blockingQueryProperties, { additionalProperties: false }),
        response: { 200: indexedResponse(ListBodyBeadSchema, 'Every ready bead, most urgent first.') },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const blocking = parseBlockingQuery(request.query, MAX_WAIT_MS);
      if (blocking) await waitForStore(reply, store, blocking);
      const items = readyBeads(store.model, store.now());
      setIndexHeaders(reply, store);
      return { items, total: items.length };
    },
  );

  app.get(
    '/v0/city/:cityName/bead/:id',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-bead-by-id',
        summary: 'Get a bead',
        tags,
        params: BeadParams,
        response: { 200: indexedResponse(BeadSchema, 'The bead.') },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const bead = store.model.beads.get(request.params.id)?.bead;
      if (!bead) throw new NotFoundError(`bead ${request.params.id} not found`);
      setIndexHeaders(reply, store);
      return present(store.model, bead);
    },
  );

  app.get(
    '/v0/city/:cityName/bead/:id/deps',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-bead-by-id-deps',
        summary: "A bead's children",
        tags,
        params: BeadParams,
        response: { 200: indexedResponse(BeadDepsResponseSchema, "The bead's children.") },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const children = childrenOf(store.model, request.params.id);
      if (!children) throw new NotFoundError(`bead ${request.params.id} not found`);
      setIndexHeaders(reply, store);
      return { children };
    },
  );

  app.get(
    '/v0/city/:cityName/beads/graph/:rootID',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-beads-graph-by-root-id',
        summary: 'A workflow graph: the root, its beads and their dependency edges',
        tags,
        params: Type.Object({
          cityName: CityNameParam,
          rootID: Type.String({ description: 'Root bead ID.' }),
        }),
        response: { 200: indexedResponse(BeadGraphResponseSchema, 'The workflow graph.') },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const graph = graphOf(store.model, request.params.rootID);
      if (!graph) throw new NotFoundError(`bead ${request.params.rootID} not found`);
      setIndexHeaders(reply, store);
      return graph;
    },
  );
}
