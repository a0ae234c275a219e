import { orderServiceFactory } from '../../actors/orders/index.ts';
import type { ServedFamily } from '../family.ts';
import { orderRoutes } from './orders.ts';

/** The orders family served: the order scheduler and runner, and its routes. */
export const ordersFamily: ServedFamily = {
  name: 'orders',
  services: [orderServiceFactory()],
  routes(scope, deps) {
    orderRoutes(scope, deps);
  },
};
