/** How much of a context the live view shows. */
const MAX_KEYS = 16;
const MAX_STRING = 120;

/**
 * A context as the live actor view shows it: scalars as they are (strings cut at 120 characters),
 * arrays as `[n]`, objects as `{n keys}`, at most 16 keys. Pure; never throws on any value.
 */
export function contextSummary(context: unknown): Record<string, unknown> {
  if (typeof context !== 'object' || context === null) return {};
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [key, value] of Object.entries(context)) {
    if (value === undefined || typeof value === 'function') continue;
    if (++n > MAX_KEYS) break;
    out[key] = summaryValue(value);
  }
  return out;
}

function summaryValue(value: unknown): unknown {
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  if (Array.isArray(value)) return `[${value.length}]`;
  if (value instanceof Map || value instanceof Set) return `[${value.size}]`;
  if (typeof value === 'object' && value !== null) return `{${Object.keys(value).length} keys}`;
  if (typeof value === 'bigint') return value.toString();
  return value;
}
