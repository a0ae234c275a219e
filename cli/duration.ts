/** Milliseconds per unit of a Go-style duration (`time.ParseDuration`), which is what upstream's CLI accepts. */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go-style duration such as `30s`, `1h30m`, `1.5m` or `250ms` into milliseconds.
 * `0` alone is accepted; any other number needs a unit, and signs are refused (every duration the CLI takes
 * is a length of time, never an offset). This is a pure function; it throws an `Error` whose message says
 * what is wrong.
 *
 * @example
 * parseDuration('1h30m'); // 5_400_000
 */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (s === '0') return 0;
  if (s === '') throw new Error('empty duration');
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)?/y;
  let total = 0;
  let pos = 0;
  while (pos < s.length) {
    part.lastIndex = pos;
    const m = part.exec(s);
    if (!m) throw new Error(`invalid duration "${text}"`);
    const unit = m[2];
    if (unit === undefined) throw new Error(`missing unit in duration "${text}"`);
    total += Number(m[1]) * UNIT_MS[unit]!;
    pos = part.lastIndex;
  }
  if (!Number.isFinite(total)) throw new Error(`invalid duration "${text}"`);
  return total;
}
