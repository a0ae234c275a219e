/**
 * city.toml's `[orders]` table (upstream `OrdersConfig`): `skip`, the order names dropped from the
 * scanned list, `max_timeout`, the cap on every order's timeout, and `[[orders.overrides]]`, hand-written
 * changes to an order's fields by name and rig. A problem names city.toml and the field, as the other config problems do; a bad value is
 * ignored rather than stopping the orders. Pure.
 */
import { CITY_FILE, didYouMean, type ConfigProblem } from '../config/index.ts';
import { goDurationMs, type MergedOverride } from './order.ts';

/** What `[orders]` says. */
export interface OrdersConfig {
  /** Order names left out of the scan, city and rig orders alike (upstream `Scan`'s skip list). */
  skip: ReadonlySet<string>;
  /** The cap on every order's effective timeout, in ms (upstream `MaxTimeoutDuration`); none when unset. */
  maxTimeoutMs?: number;
  /** In file order: a later override of the same order wins field by field (upstream `ApplyOverrides`). */
  overrides: OrderOverride[];
}

/** The `[order]` keys an override may replace (upstream `OrderOverride`; `trigger` is our name of `gate`). */
export const OVERRIDE_FIELDS = ['gate', 'trigger', 'interval', 'schedule', 'check', 'on', 'pool', 'timeout'];

/** One `[[orders.overrides]]` entry. */
export interface OrderOverride {
  /** Where it is: `orders.overrides[<i>]`. */
  field: string;
  /** The line of its `[[orders.overrides]]` header in city.toml (1 when it cannot be told). */
  line: number;
  name: string;
  /** Empty or absent: a city order's override. */
  rig?: string;
  enabled?: boolean;
  /** The `[order]` keys it sets, by key. */
  set: Record<string, string>;
}

const KEYS = ['skip', 'max_timeout', 'overrides'];
const OVERRIDE_KEYS = ['name', 'rig', 'enabled', ...OVERRIDE_FIELDS];

const isTable = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/**
 * `[orders]` of the merged city.toml (undefined: none), and its problems; `cityText` (city.toml's text)
 * tells the line of each override. Pure.
 */
export function ordersConfigOf(
  orders: unknown,
  cityText = '',
): { config: OrdersConfig; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const problem = (severity: ConfigProblem['severity'], field: string, message: string) =>
    problems.push({ severity, file: CITY_FILE, field, message });
  const config: OrdersConfig = { skip: new Set(), overrides: [] };
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
  const overrides = orders.overrides;
  if (overrides !== undefined && !(Array.isArray(overrides) && overrides.every(isTable)))
    problem('error', 'orders.overrides', 'expected an array of tables ([[orders.overrides]])');
  else if (overrides !== undefined) {
    const headers = headerLines(cityText);
    overrides.forEach((ov, i) => {
      const field = `orders.overrides[${i}]`;
      for (const key of Object.keys(ov))
        if (!OVERRIDE_KEYS.includes(key))
          problem('warning', `${field}.${key}`, `unknown field "${key}"${didYouMean(key, OVERRIDE_KEYS)}`);
      const entry: OrderOverride = { field, line: headers[i] ?? 1, name: '', set: {} };
      for (const key of ['name', 'rig', ...OVERRIDE_FIELDS]) {
        const v = ov[key];
        if (v === undefined) continue;
        if (typeof v !== 'string') problem('error', `${field}.${key}`, 'expected a string');
        else if (key === 'name') entry.name = v;
        else if (key === 'rig') {
          if (v !== '') entry.rig = v;
        } else entry.set[key] = v;
      }
      if (ov.enabled !== undefined && typeof ov.enabled !== 'boolean')
        problem('error', `${field}.enabled`, 'expected a boolean');
      else if (ov.enabled !== undefined) entry.enabled = ov.enabled;
      if (entry.name === '') problem('error', `${field}.name`, 'name is required');
      else config.overrides.push(entry);
    });
  }
  return { config, problems };
}

/** The line of each `[[orders.overrides]]` header of `text`, in order. Pure. */
function headerLines(text: string): number[] {
  const out: number[] = [];
  text.split(/\r?\n/).forEach((l, i) => {
    if (/^\s*\[\[\s*orders\.overrides\s*\]\]/.test(l)) out.push(i + 1);
  });
  return out;
}

/** Whether `ov` is the override of the order `name` of `rig` (a rig-less override is a city order's). */
const matches = (ov: OrderOverride, name: string, rig: string | undefined): boolean =>
  ov.name === name && (ov.rig ?? '') === (rig ?? '');

/** The overrides of the order `name` (of `rig`) merged, or undefined when none names it. Pure. */
export function overrideFor(config: OrdersConfig, name: string, rig?: string): MergedOverride | undefined {
  let out: MergedOverride | undefined;
  for (const ov of config.overrides) {
    if (!matches(ov, name, rig)) continue;
    out ??= { set: {} };
    if (ov.enabled !== undefined) out.enabled = ov.enabled;
    // `gate` and `trigger` name one thing: the later override's wins.
    if ('gate' in ov.set || 'trigger' in ov.set) {
      delete out.set.gate;
      delete out.set.trigger;
    }
    for (const [key, value] of Object.entries(ov.set))
      out.set[key] = { value, field: ov.field, line: ov.line };
  }
  return out;
}

/**
 * An error for each override naming no order of the scan (upstream `ApplyOverrides` fails the same way;
 * a skipped order, or one whose file disables it, is not there to override). Pure.
 */
export function unmatchedOverrides(
  config: OrdersConfig,
  scanned: readonly { name: string; rig?: string }[],
): ConfigProblem[] {
  return config.overrides
    .filter((ov) => !scanned.some((o) => matches(ov, o.name, o.rig)))
    .map((ov) => ({
      severity: 'error',
      file: CITY_FILE,
      field: ov.field,
      message: `order ${JSON.stringify(ov.name)}${ov.rig ? ` (rig ${JSON.stringify(ov.rig)})` : ''} not found`,
    }));
}

/** An order's effective timeout (upstream `effectiveTimeout`): its own, capped by `max_timeout`. Pure. */
export const cappedTimeoutMs = (timeoutMs: number, config: Pick<OrdersConfig, 'maxTimeoutMs'>): number =>
  config.maxTimeoutMs !== undefined && timeoutMs > config.maxTimeoutMs ? config.maxTimeoutMs : timeoutMs;
