/** The extmsg family's actor side: the per-city service, its runner and the outbound dispatcher. */
export { ExtmsgService, DEFAULT_ANSWER_WITHIN_MS } from './extmsgService.ts';
export { ExtmsgRunner } from './extmsgRunner.ts';
export { DeliveryDispatcher, type AttemptResult } from './deliveryDispatcher.ts';
export { DEFAULT_DELIVERY_POLICY, nextAttemptAt, RETRYABLE, type DeliveryPolicy } from './deliveryPolicy.ts';
export {
  failureKindOf,
  publishOverHttp,
  receiptOf,
  type PublishFn,
  type PublishOutcome,
} from './httpAdapter.ts';
export {
  EXTMSG_SERVICE,
  extmsgServiceFactory,
  startExtmsgService,
  type ExtmsgServiceHandle,
  type ExtmsgServiceOptions,
} from './startExtmsgService.ts';
