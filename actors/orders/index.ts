/** The orders family's face: what other families and the HTTP layer may use of it. */
export { orderProblems } from './orderScan.ts';
export { type OrderService } from './orderService.ts';
export { ORDER_SERVICE, orderServiceFactory } from './startOrderService.ts';
