import { readFile } from 'node:fs/promises';
import { parse } from 'smol-toml';
import { renderProblem } from '../../machines/config/problems.ts';
import { goDurationMs } from '../../machines/orders/order.ts';
import { BEAD_SERVICE } from '../beads/index.ts';
import { cityTomlPath } from '../runtime/cityPaths.ts';
import type { CityServiceContext, CityServiceFactory } from '../runtime/cityServices.ts';
import { UnavailableError } from '../runtime/errors.ts';
import { FORMULA_SERVICE } from '../formulas/index.ts';

import { SchedulerActor } from './schedulerActor.ts';
import { DEFAULT_ORDER_TICK_MS, OrderService, type OrderServiceOptions } from './orderService.ts';

declare module '../runtime/cityServices.ts' {
  interface CityServiceRegistry {
    orders: OrderService;
  }
}

/** The key of the orders service in `LiveCity.services`. */
export const ORDER_SERVICE = 'orders';

/**
 * The scheduler's tick of a city: `[daemon] patrol_interval` of its city.toml (a Go duration, upstream's
 * controller tick, which dispatches orders), else 30 s. Effects: reads city.toml.
 * @throws Error naming the key when the value is not a positive duration (the city does not start).
 */
export async function patrolIntervalMs(cityPath: string): Promise<number> {
  let doc: Record<string, unknown>;
  try {
    doc = parse(await readFile(cityTomlPath(cityPath), 'utf8'));
  } catch {
    // A city.toml that is missing or broken is the config phase's to report; orders keep the default.
    return DEFAULT_ORDER_TICK_MS;
  }
  const daemon = doc.daemon as Record<string, unknown> | undefined;
  const raw = daemon?.patrol_interval;
  if (raw === undefined) return DEFAULT_ORDER_TICK_MS;
  const ms = typeof raw === 'string' ? goDurationMs(raw) : undefined;
  if (!ms) throw new Error(`city.toml [daemon] patrol_interval: ${JSON.stringify(raw)} is not a duration`);
  return ms;
}

/**
 * Starts a city's orders: folds its log (enable/disable), reads its layers' `orders/`, rebuilds each order's last slot
 * from the beads, and ticks the scheduler until stopped. Effects: reads files and the log; a timer; writes
 * through the bead store when an order fires.
 * @throws UnavailableError without the bead store or the formulas service.
 */
export async function startOrderService(
  city: CityServiceContext,
  options: OrderServiceOptions = {},
): Promise<{ service: OrderService; stop: () => Promise<void> }> {
  const store = city.started?.[BEAD_SERVICE];
  const formulas = city.started?.[FORMULA_SERVICE];
  if (!store || !formulas)
    throw new UnavailableError(`city ${city.name} has no bead store or formulas for its orders`);
  const tickMs = options.tickMs ?? (await patrolIntervalMs(city.path));
  const onError =
    options.onError ??
    ((err: unknown) => city.logger?.warn({ err, city: city.name }, 'order scheduler trouble'));
  const service = new OrderService(city.name, city.path, store, formulas, city.log, {
    ...(city.observer ? { scheduler: new SchedulerActor(city.name, city.observer) } : {}),
    onProblem: (problem) =>
      city.logger?.warn({ city: city.name, problem: renderProblem(problem) }, 'order configuration'),
    ...options,
    tickMs,
    onError,
  });
  await service.start();
  for (const b of service.broken)
    city.logger?.warn({ city: city.name, order: b.name, problems: b.problems }, 'order skipped');
  return { service, stop: () => service.stop() };
}

/**
 * The orders city service (`LiveCity.services.orders`), started in `resolving_formulas` after the formulas
 * service; `options` (a clock, a tick) are for tests.
 */
export function orderServiceFactory(
  options: OrderServiceOptions = {},
): CityServiceFactory<typeof ORDER_SERVICE> {
  return {
    name: ORDER_SERVICE,
    phase: 'resolving_formulas',
    start: (city) => startOrderService(city, options),
  };
}
