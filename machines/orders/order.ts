import { parse, TomlError } from 'smol-toml';
import { parseCron, type Cron } from './cron.ts';
import type { FormulaProblem } from '../formulas/index.ts';
import { scopedOrderName } from './scope.ts';
import { CITY_FILE } from '../config/index.ts';

/** The overrides of one order merged in file order, each key with the override it came from. */
export interface MergedOverride {
  enabled?: boolean;
  set: Record<string, { value: string; field: string; line: number }>;
}

/** What fires an order (upstream's `gate`, later `trigger`). */
export type Trigger =
  | { kind: 'cron'; schedule: string; cron: Cron }
  | { kind: 'cooldown'; interval: string; intervalMs: number }
  | { kind: 'event'; on: string }
  /** Due when `sh -c <check>` exits 0 (run by the order service: it is I/O). */
  | { kind: 'condition'; check: string }
  | { kind: 'manual' };

/** What to do with the slots a scheduler missed (it was down): see `schedule.ts`. */
export type CatchUp = 'latest' | 'all' | 'none';

/** One order, from `orders/<name>.toml` (`[order]` table). */
export interface Order {
  name: string;
  /** `<name>` for a city order, `<name>:rig:<rig>` for one read from a rig's layers. */
  scopedName: string;
  /** The rig whose formula layers the order was read from; absent for a city order. */
  rig?: string;
  description?: string;
  formula?: string;
  exec?: string;
  pool?: string;
  trigger: Trigger;
  catchUp: CatchUp;
  /** The file's, or an `[[orders.overrides]]` entry's; a journaled enable/disable overrides it. */
  enabled: boolean;
  timeout?: string;
  /** The effective timeout: `timeout` (default 30 s formula, 300 s exec), capped by `[orders].max_timeout`. */
  timeoutMs: number;
  file: string;
}

const KEYS = new Set([
  'description',
  'formula',
  'exec',
  'gate',
  'trigger',
  'schedule',
  'interval',
  'on',
  'check',
  'pool',
  'timeout',
  'enabled',
  'catch_up',
]);

/** A Go duration (`30s`, `1h30m`, `500ms`) in ms, or undefined. This is a pure function. */
export function goDurationMs(s: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let used = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    used += m[0].length;
  }
  return used === s.length && used > 0 ? total : undefined;
}

/** One order file parsed: its order, or its problems. */
export type ParsedOrder = { ok: true; order: Order } | { ok: false; problems: FormulaProblem[] };

/** The TOML of an order file, or its syntax problem. This is a pure function. */
function orderDoc(
  file: string,
  text: string,
): { ok: true; doc: Record<string, unknown> } | { ok: false; problems: FormulaProblem[] } {
  try {
    return { ok: true, doc: parse(text) };
  } catch (err) {
    const line = err instanceof TomlError ? err.line : 1;
    return {
      ok: false,
      problems: [{ file, line, field: '(syntax)', message: String((err as Error).message).split('\n')[0]! }],
    };
  }
}

/**
 * One order file as upstream's scan takes it: a file whose `[order]` says `enabled = false` is dropped
 * before anything else is checked (`{ disabled: true }`); any other gets the `[[orders.overrides]]` of its
 * name and rig on top of its `[order]` table and is then parsed (see {@link parseOrder}), a problem in an
 * overridden value naming city.toml and the override. This is a pure function.
 */
export function scanOrder(
  name: string,
  file: string,
  text: string,
  rig?: string,
  override?: MergedOverride,
): ParsedOrder | { disabled: true } {
  const read = orderDoc(file, text);
  if (!read.ok) return read;
  const o = read.doc.order;
  const table =
    typeof o === 'object' && o !== null && !Array.isArray(o) ? (o as Record<string, unknown>) : undefined;
  if (table?.enabled === false) return { disabled: true };
  if (!table || !override) return orderOf(name, file, text, read.doc, rig);
  const merged = { ...table };
  if ('gate' in override.set || 'trigger' in override.set) {
    delete merged.gate;
    delete merged.trigger;
  }
  for (const [key, { value }] of Object.entries(override.set)) merged[key] = value;
  const parsed = orderOf(name, file, text, { ...read.doc, order: merged }, rig, override);
  if (parsed.ok && override.enabled !== undefined) parsed.order.enabled = override.enabled;
  return parsed;
}

/**
 * Parses `orders/<name>.toml`: exactly one of `formula` / `exec` (exec without `pool`), a trigger
 * (`gate` or `trigger`: cron needs `schedule`, cooldown `interval`, condition `check`, event `on`; manual
 * needs nothing), and
 * our `catch_up` (latest | all | none, default latest). Problems name file, line and field. An order of
 * `rig`'s layers is scoped to it. This is a pure function.
 */
export function parseOrder(name: string, file: string, text: string, rig?: string): ParsedOrder {
  const read = orderDoc(file, text);
  return read.ok ? orderOf(name, file, text, read.doc, rig) : read;
}

/**
 * The order of a parsed file (`text` for the lines problems name; a key `override` set is named in
 * city.toml). This is a pure function.
 */
function orderOf(
  name: string,
  file: string,
  text: string,
  doc: Record<string, unknown>,
  rig?: string,
  override?: MergedOverride,
): ParsedOrder {
  const lines = text.split(/\r?\n/);
  const lineOf = (key: string) => {
    const i = lines.findIndex((l) => new RegExp(`^\\s*${key}\\s*=`).test(l));
    return i < 0 ? 1 : i + 1;
  };
  const problems: FormulaProblem[] = [];
  const at = (key: string, message: string) => {
    const from = override?.set[key];
    problems.push(
      from
        ? { file: CITY_FILE, line: from.line, field: `${from.field}.${key}`, message }
        : { file, line: lineOf(key), field: `order.${key}`, message },
    );
  };
  const o = doc.order;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) {
    return {
      ok: false,
      problems: [{ file, line: 1, field: 'order', message: 'an [order] table is required' }],
    };
  }
  const t = o as Record<string, unknown>;
  for (const k of Object.keys(t)) if (!KEYS.has(k)) at(k, 'unknown field');
  const str = (k: string): string | undefined => {
    const v = t[k];
    if (v === undefined) return undefined;
    if (typeof v === 'string' && v !== '') return v;
    at(k, 'must be a non-empty string');
    return undefined;
  };
  const formula = str('formula');
  const exec = str('exec');
  const pool = str('pool');
  if ((formula === undefined) === (exec === undefined))
    at(formula ? 'exec' : 'formula', 'exactly one of formula and exec is required');
  if (exec && pool) at('pool', 'an exec order cannot have a pool');
  const kind = str('trigger') ?? str('gate');
  let trigger: Trigger | undefined;
  if (kind === 'cron') {
    const schedule = str('schedule');
    const cron = schedule === undefined ? 'schedule is required for a cron trigger' : parseCron(schedule);
    if (typeof cron === 'string') at('schedule', cron);
    else trigger = { kind, schedule: schedule!, cron };
  } else if (kind === 'cooldown') {
    const interval = str('interval');
    const ms = interval === undefined ? undefined : goDurationMs(interval);
    if (!ms) at('interval', 'a cooldown trigger needs interval as a positive Go duration');
    else trigger = { kind, interval: interval!, intervalMs: ms };
  } else if (kind === 'event') {
    const on = str('on');
    if (!on) at('on', 'an event trigger needs on (an event type)');
    else trigger = { kind, on };
  } else if (kind === 'condition') {
    const check = str('check');
    if (!check) at('check', 'a condition trigger needs check (a shell command)');
    else trigger = { kind, check };
  } else if (kind === 'manual') trigger = { kind };
  else
    at(
      t.trigger === undefined ? 'gate' : 'trigger',
      'must be one of cron, cooldown, condition, event, manual',
    );
  const catchUp = t.catch_up ?? 'latest';
  if (catchUp !== 'latest' && catchUp !== 'all' && catchUp !== 'none')
    at('catch_up', 'must be latest, all or none');
  const enabled = t.enabled ?? true;
  if (typeof enabled !== 'boolean') at('enabled', 'must be a boolean');
  const timeout = str('timeout');
  const timeoutMs = timeout === undefined ? (exec ? 300_000 : 30_000) : goDurationMs(timeout);
  if (timeoutMs === undefined) at('timeout', 'must be a Go duration');
  if (problems.length > 0 || !trigger) return { ok: false, problems };
  const order: Order = {
    name,
    scopedName: scopedOrderName(name, rig),
    ...(rig ? { rig } : {}),
    trigger,
    catchUp: catchUp as CatchUp,
    enabled: enabled as boolean,
    timeoutMs: timeoutMs!,
    file,
  };
  const description = str('description');
  if (description) order.description = description;
  if (formula) order.formula = formula;
  if (exec) order.exec = exec;
  if (pool) order.pool = pool;
  if (timeout) order.timeout = timeout;
  return { ok: true, order };
}
