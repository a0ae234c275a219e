/** Parses `500ms`, `1s`, `2m`, `1h`, or a bare number of milliseconds. Pure; throws on anything else. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new Error(`invalid duration "${text}" (use e.g. 500ms, 15s, 2m)`);
  const n = Number(m[1]);
  const unit = m[2] ?? 'ms';
  return Math.round(n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit]!);
}
