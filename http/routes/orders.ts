import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { NotFoundError, ValidationError } from '../../actors/runtime/errors.ts';
import type { OrderService } from '../../actors/orders/index.ts';
import { ORDER_SERVICE } from '../../actors/orders/index.ts';
import {
  checkResponse,
  historyDetail,
  historyEntry,
  lastTracking,
  orderResponse,
  ordersFeed,
  storeRef,
} from '../../machines/orders/views.ts';
import { CityNameParam, indexedResponse, MutationHeaders } from '../../schemas/beadsCommon.ts';
import {
  OrderCheckListBodySchema,
  OrderHistoryDetailQuerySchema,
  OrderHistoryDetailSchema,
  OrderHistoryListBodySchema,
  OrderListBodySchema,
  OrderResponseSchema,
  OrdersCheckQuerySchema,
  OrdersFeedBodySchema,
  OrdersFeedQuerySchema,
  OrdersHistoryQuerySchema,
  OrderRunResponseSchema,
  OrderToggleResponseSchema,
  type OrderRunResponse,
} from '../../schemas/orders.ts';
import { cityService } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';
import { requestScope } from './formulas.ts';

const tags = ['orders'];
const CityParams = Type.Object({ cityName: CityNameParam });
const NameParams = Type.Object({
  cityName: CityNameParam,
  name: Type.String({ minLength: 1, pattern: '\\S', description: 'Order name or scoped name.' }),
});
const RunParams = Type.Object({
  cityName: CityNameParam,
  bead_id: Type.String({ minLength: 1, pattern: '\\S', description: 'Bead ID for the order run.' }),
});

/**
 * The orders service of a running city, its `orders/` directory reread (an edit is seen at once).
 * @throws NotFoundError while the city is absent or starting; UnavailableError (503) without the service.
 */
async function ordersFor(deps: Pick<AppDeps, 'cities'>, cityName: string): Promise<OrderService> {
  const service = cityService(deps, cityName, ORDER_SERVICE, 'orders service');
  await service.reload();
  return service;
}

/** `before` as ms. @throws ValidationError naming `query.before` when it is not an RFC 3339 instant. */
function beforeMs(before: string | undefined): number | undefined {
  if (before === undefined) return undefined;
  const ms = Date.parse(before);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(before) || Number.isNaN(ms))
    throw new ValidationError('validation failed', null, {
      errors: [{ location: 'query.before', message: 'before must be an RFC 3339 timestamp', value: before }],
    });
  return ms;
}

/**
 * The orders family under /v0/city/{cityName}: list, one order, check (what would fire now and why not),
 * feed, history and one run's output, and enable/disable (journaled as `order.enabled` / `order.disabled`).
 * A name is an order's scoped name (`<name>:rig:<rig>` for a rig's), else its bare name. An unknown order or
 * run is a 404, a bare name several rigs' orders share a 409; nothing is written on any error.
 */
export function orderRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v0/city/:cityName/orders',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-orders',
        summary: 'List the orders of the city (orders/<name>.toml) with their effective enabled flag',
        tags,
        params: CityParams,
        response: { 200: OrderListBodySchema },
      },
    },
    async (request) => {
      const service = await ordersFor(deps, request.params.cityName);
      for (const b of service.broken)
        request.log.warn({ order: b.name, problems: b.problems }, 'order skipped');
      return { orders: service.list().map((o) => orderResponse(o, o.effectiveEnabled)) };
    },
  );

  app.get(
    '/v0/city/:cityName/orders/check',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-orders-check',
        summary: 'Evaluate every order’s trigger now: whether it is due, and why or why not',
        tags,
        params: CityParams,
        querystring: OrdersCheckQuerySchema,
        response: { 200: OrderCheckListBodySchema },
      },
    },
    async (request) => {
      const service = await ordersFor(deps, request.params.cityName);
      const checks = await service.check();
      const model = service.store.model;
      return {
        checks: checks.map(({ order, evaluation }) =>
          checkResponse(order, evaluation, lastTracking(model, order.scopedName)),
        ),
      };
    },
  );

  app.get(
    '/v0/city/:cityName/orders/feed',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-orders-feed',
        summary: 'Order runs and workflow runs, most active first',
        tags,
        params: CityParams,
        querystring: OrdersFeedQuerySchema,
        response: { 200: indexedResponse(OrdersFeedBodySchema, 'Feed items.') },
      },
    },
    async (request, reply) => {
      const scope = await requestScope(deps, request.params.cityName, request.query);
      const service = await ordersFor(deps, request.params.cityName);
      reply.header('X-GC-Index', String(service.store.index)).header('X-GC-Cache-Age-S', '0');
      const items = ordersFeed(service.store.model, service.city, service.orders, request.query.limit, scope);
      return { items, partial: false };
    },
  );

  app.get(
    '/v0/city/:cityName/orders/history',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-orders-history',
        summary: 'Runs of one order, newest first (tracking beads, dispatched wisps, skipped slots)',
        tags,
        params: CityParams,
        querystring: OrdersHistoryQuerySchema,
        response: { 200: indexedResponse(OrderHistoryListBodySchema, 'Order history entries.', false) },
      },
    },
    async (request, reply) => {
      const { scoped_name, limit, before } = request.query;
      const at = beforeMs(before);
      const service = await ordersFor(deps, request.params.cityName);
      const order = service.get(scoped_name);
      const beads = service.history(scoped_name, limit === undefined || limit === 0 ? 20 : limit, at);
      reply.header('X-GC-Cache-Age-S', '0');
      return { entries: beads.map((b) => historyEntry(service.city, order, b)) };
    },
  );

  app.get(
    '/v0/city/:cityName/order/history/:bead_id',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-order-history-by-bead-id',
        summary: 'One order run with its captured output',
        tags,
        params: RunParams,
        querystring: OrderHistoryDetailQuerySchema,
        response: { 200: OrderHistoryDetailSchema },
      },
    },
    async (request) => {
      const { cityName, bead_id } = request.params;
      const ref = request.query.store_ref;
      if (ref !== undefined && ref !== storeRef(cityName)) throw new NotFoundError(`store ${ref} not found`);
      const service = await ordersFor(deps, cityName);
      return historyDetail(service.city, service.run(bead_id).bead);
    },
  );

  app.get(
    '/v0/city/:cityName/order/:name',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-order-by-name',
        summary: 'One order',
        tags,
        params: NameParams,
        response: { 200: OrderResponseSchema },
      },
    },
    async (request) => {
      const service = await ordersFor(deps, request.params.cityName);
      const order = service.get(request.params.name);
      return orderResponse(order, service.enabled(order));
    },
  );

  app.post(
    '/v0/city/:cityName/order/:name/run',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-order-by-name-run',
        summary: 'Run an order now, whatever its trigger (ours: gc order run)',
        description:
          'Fires the order through the scheduler’s own path, bypassing its trigger (even when disabled): a ' +
          'formula order cooks a wisp labelled `order-run:<scoped_name>`, routed to its pool; an exec order ' +
          'runs its command and answers once its run is recorded, with its exit code and output.',
        tags,
        params: NameParams,
        headers: MutationHeaders,
        response: { 200: OrderRunResponseSchema },
      },
    },
    async (request): Promise<OrderRunResponse> => {
      const service = await ordersFor(deps, request.params.cityName);
      const { order, fired } = await service.runNow(request.params.name);
      const out: OrderRunResponse = {
        status: 'executed',
        name: order.name,
        scoped_name: order.scopedName,
        type: order.exec !== undefined ? 'exec' : 'formula',
      };
      if (fired.root) out.wisp_root_id = fired.root;
      if (fired.pool) out.pool = fired.pool;
      if (fired.tracking) out.tracking_bead_id = fired.tracking;
      const exec = fired.exec ? await fired.exec : undefined;
      if (exec) Object.assign(out, { exit_code: exec.code, stdout: exec.stdout, stderr: exec.stderr });
      return out;
    },
  );

  for (const verb of ['enable', 'disable'] as const) {
    app.post(
      `/v0/city/:cityName/order/:name/${verb}`,
      {
        schema: {
          operationId: `post-v0-city-by-city-name-order-by-name-${verb}`,
          summary: `${verb === 'enable' ? 'Enable' : 'Disable'} an order (journaled as order.${verb}d)`,
          tags,
          params: NameParams,
          headers: MutationHeaders,
          response: { 200: OrderToggleResponseSchema },
        },
      },
      async (request) => {
        const service = await ordersFor(deps, request.params.cityName);
        await service.setEnabled(request.params.name, verb === 'enable', 'api');
        return { status: `${verb}d` };
      },
    );
  }
}
