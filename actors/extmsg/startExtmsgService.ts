import { defaultLogger, type Logger } from '../runtime/logger.ts';
import type { Journal } from '../runtime/journal/journal.ts';
import { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import type { CityServiceFactory } from '../runtime/cityServices.ts';
import { createModel } from '../../machines/extmsg/model.ts';
import { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy } from './deliveryPolicy.ts';
import { DeliveryDispatcher } from './deliveryDispatcher.ts';
import { ExtmsgRunner } from './extmsgRunner.ts';
import { DEFAULT_ANSWER_WITHIN_MS, ExtmsgService } from './extmsgService.ts';
import { publishOverHttp, type PublishFn } from './httpAdapter.ts';

declare module '../runtime/cityServices.ts' {
  interface CityServiceRegistry {
    extmsg: ExtmsgService;
  }
}

/** The key of the extmsg service in `LiveCity.services`. */
export const EXTMSG_SERVICE = 'extmsg';

/** Options of {@link startExtmsgService}; every one has a production default. */
export interface ExtmsgServiceOptions {
  clock?: () => Date;
  /** Retry and backoff of outbound deliveries (merged over the default). */
  delivery?: Partial<DeliveryPolicy>;
  /** How outbound messages reach adapters (default: upstream's HTTP protocol). */
  publish?: PublishFn;
  /** How long POST /extmsg/outbound waits for the first attempt (default 10 s). */
  answerWithinMs?: number;
  onError?: (err: unknown) => void;
  logger?: Logger;
}

/** A started extmsg service and how to stop it. */
export interface ExtmsgServiceHandle {
  service: ExtmsgService;
  stop(): Promise<void>;
}

/**
 * Starts a city's external messaging: folds the city log into the extmsg model, follows it, and resumes
 * every pending outbound delivery. Effects: reads the log; keeps a subscription open and sends deliveries
 * over HTTP until `stop`.
 * @throws UnavailableError when the log cannot be read; DamagedRecordError at a damaged extmsg record.
 */
export async function startExtmsgService(
  city: { name: string; journal: Journal; log?: LogRuntime },
  options: ExtmsgServiceOptions = {},
): Promise<ExtmsgServiceHandle> {
  const clock = options.clock ?? (() => new Date());
  const logger = options.logger ?? defaultLogger();
  const onError =
    options.onError ?? ((err: unknown) => logger.warn({ err, city: city.name }, 'extmsg delivery trouble'));
  // A city's services share its log runtime; one started on its own (tests, tools) gets its own.
  const own = city.log ? undefined : new LogRuntime(city.journal, 0, { onError });
  const runner = new ExtmsgRunner(city.log ?? own!, createModel(), clock);
  try {
    await runner.start();
  } catch (err) {
    await own?.close();
    throw err;
  }
  const policy = { ...DEFAULT_DELIVERY_POLICY, ...options.delivery };
  const dispatcher = new DeliveryDispatcher(
    runner,
    options.publish ?? publishOverHttp,
    policy,
    clock,
    onError,
  );
  const service = new ExtmsgService(
    city.name,
    runner,
    dispatcher,
    options.answerWithinMs ?? DEFAULT_ANSWER_WITHIN_MS,
  );
  dispatcher.start();
  return {
    service,
    stop: async () => {
      await service.stop();
      await own?.close();
    },
  };
}

/** The city service factory (`LiveCity.services.extmsg`), started after the bead store. */
export function extmsgServiceFactory(
  options: ExtmsgServiceOptions = {},
): CityServiceFactory<typeof EXTMSG_SERVICE> {
  return {
    name: EXTMSG_SERVICE,
    phase: 'starting_bead_store',
    start: (city) =>
      startExtmsgService(city, { ...(city.logger ? { logger: city.logger } : {}), ...options }),
  };
}
