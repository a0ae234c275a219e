/**
 * city.toml's `[orders]` table (upstream `OrdersConfig`): `skip`, the order names dropped from the
 * scanned list, and `max_timeout`, the cap on every order's timeout. A problem names city.toml and the field, as the other config problems do; a bad value is
 * ignored rather than stopping the orders. Pure.
 */
import { CITY_FILE } from '../config/layers.ts';
import { didYouMean, type ConfigProblem } from '../config/problems.ts';
import { goDurationMs } from './order.ts';

/** What `[orders]` says. */
export interface OrdersConfig {
  /** Order names left out of the scan, city and rig orders alike (upstream `Scan`'s skip list). */
  skip: ReadonlySet<string>;
  /** The cap on every order's effective timeout, in ms (upstream `MaxTimeoutDuration`); none when unset. */
  maxTimeoutMs?: number;
}

const KEYS = ['skip', 'max_timeout', 'overrides'];

const isTable = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** `[orders]` of the merged city.toml (undefined: none), and its problems. Pure. */
export function ordersConfigOf(orders: unknown): { config: OrdersConfig; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const problem = (severity: ConfigProblem['severity'], field: string, message: string) =>
    problems.push({ severity, file: CITY_FILE, field, message });
  const config: OrdersConfig = { skip: new Set() };
  if (orders === undefined) return { config, problems };
  if (!isTable(orders)) {
    problem('error', 'orders', 'expected a table');
    return { config, problems };
  }
  for (const key of Object.keys(orders))
    if (!KEYS.includes(key))
      problem('warning', `orders.${key}`, `unknown field "${key}"${didYouMean(key, KEYS)}`);
  const skip = orders.skip;
  if (skip !== undefined) {
    if (Array.isArray(skip) && skip.every((s) => typeof s === 'string')) config.skip = new Set(skip);
    else problem('error', 'orders.skip', 'expected an array of order names');
  }
  const max = orders.max_timeout;
  if (max !== undefined && max !== '') {
    // As upstream: a value that is not a duration is a warning and caps nothing.
    const ms = typeof max === 'string' ? goDurationMs(max) : undefined;
    if (ms === undefined)
      problem(
        'warning',
        'orders.max_timeout',
        `max_timeout = ${JSON.stringify(max)} is not a valid duration`,
      );
    else if (ms > 0) config.maxTimeoutMs = ms;
  }
  return { config, problems };
}

/** An order's effective timeout (upstream `effectiveTimeout`): its own, capped by `max_timeout`. Pure. */
export const cappedTimeoutMs = (timeoutMs: number, config: Pick<OrdersConfig, 'maxTimeoutMs'>): number =>
  config.maxTimeoutMs !== undefined && timeoutMs > config.maxTimeoutMs ? config.maxTimeoutMs : timeoutMs;
