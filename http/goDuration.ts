/**
 * Go's `time.ParseDuration` grammar, which the wire uses for the `since` and `wait` query values
 * (`5m`, `1h30m`, `250ms`, `-2s`, `0`): upstream clients send Go durations, so we parse exactly that grammar.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const quote = (s: string): string => JSON.stringify(s);

/** Go's longest duration, (2^63 - 1) ns, in ms. */
const MAX_MS = 9_223_372_036_854;

/**
 * Parses a Go duration string into milliseconds (fractional below 1 ms). This is a pure function.
 *
 * @throws Error whose message is Go's own (`time: invalid duration "x"`, `time: missing unit in duration
 *   "5"`, `time: unknown unit "d" in duration "5d"`), so callers can echo it as upstream does.
 * @example parseGoDuration('1h30m') === 5_400_000
 */
export function parseGoDuration(text: string): number {
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new Error(`time: invalid duration ${quote(text)}`);
  let total = 0;
  while (s !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const [whole = '', frac] = [number[1], number[2]];
    if (whole === '' && (frac === undefined || frac === '')) {
      throw new Error(`time: invalid duration ${quote(text)}`);
    }
    s = s.slice(number[0].length);
    const unit = /^[^\d.]*/.exec(s)![0];
    if (unit === '') throw new Error(`time: missing unit in duration ${quote(text)}`);
    const scale = UNIT_MS[unit];
    if (scale === undefined) throw new Error(`time: unknown unit ${quote(unit)} in duration ${quote(text)}`);
    s = s.slice(unit.length);
    total += Number(`${whole || '0'}.${frac ?? '0'}`) * scale;
  }
  if (!Number.isFinite(total) || total > MAX_MS) {
    throw new Error(`time: invalid duration ${quote(text)}`);
  }
  return sign * total;
}
