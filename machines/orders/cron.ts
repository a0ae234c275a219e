/**
 * Five-field cron schedules (minute, hour, day of month, month, weekday), in UTC. Each field is `*`, a
 * number, a range `a-b`, a step `*\/n` or `a-b/n`, or a comma list of those (upstream accepts `*`,
 * numbers and lists; ranges and steps are ours, a superset).
 */
export interface Cron {
  readonly source: string;
  readonly fields: readonly (readonly boolean[])[];
}

const BOUNDS: readonly [number, number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
];
const NAMES = ['minute', 'hour', 'day of month', 'month', 'weekday'];

/** Parses a schedule, or answers why it is not one. This is a pure function. */
export function parseCron(source: string): Cron | string {
  const parts = source.trim().split(/\s+/);
  if (parts.length !== 5) return `cron schedule needs 5 fields, got ${parts.length}`;
  const fields: boolean[][] = [];
  for (let i = 0; i < 5; i++) {
    const [lo, hi] = BOUNDS[i]!;
    const set = new Array<boolean>(hi + 1).fill(false);
    for (const item of parts[i]!.split(',')) {
      const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
      if (!m) return `cron ${NAMES[i]}: invalid ${JSON.stringify(item)}`;
      const from = m[1] === '*' ? lo : Number(m[2]);
      const to = m[1] === '*' ? hi : m[3] !== undefined ? Number(m[3]) : m[4] ? hi : from;
      const step = m[4] ? Number(m[4]) : 1;
      if (from < lo || to > hi || from > to || step < 1)
        return `cron ${NAMES[i]}: ${JSON.stringify(item)} is outside ${lo}-${hi}`;
      for (let v = from; v <= to; v += step) set[v] = true;
    }
    fields.push(set);
  }
  return { source, fields };
}

/** True when the minute starting at `ms` (UTC) matches. This is a pure function. */
export function cronMatches(cron: Cron, ms: number): boolean {
  const d = new Date(ms);
  const [min, hour, dom, month, dow] = cron.fields;
  return (
    min![d.getUTCMinutes()]! &&
    hour![d.getUTCHours()]! &&
    dom![d.getUTCDate()]! &&
    month![d.getUTCMonth() + 1]! &&
    dow![d.getUTCDay()]!
  );
}

export const MINUTE = 60_000;

/**
 * The first matching minute at or after `from` (rounded up to a minute) and at most `until`, or undefined.
 * Skips whole months, days and hours that cannot match, so a daily schedule costs a few dozen steps, not
 * a walk over every minute in between. This is a pure function.
 */
export function nextCronMatch(cron: Cron, from: number, until: number): number | undefined {
  const [min, hour, dom, month, dow] = cron.fields;
  let m = Math.ceil(from / MINUTE) * MINUTE;
  while (m <= until) {
    const d = new Date(m);
    const [y, mo, day, h] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()];
    if (!month![mo + 1]) m = Date.UTC(y, mo + 1, 1);
    else if (!dom![day] || !dow![d.getUTCDay()]) m = Date.UTC(y, mo, day + 1);
    else if (!hour![h]) m = Date.UTC(y, mo, day, h + 1);
    else {
      let minute = d.getUTCMinutes();
      while (minute < 60 && !min![minute]) minute++;
      if (minute < 60) {
        const at = Date.UTC(y, mo, day, h, minute);
        return at <= until ? at : undefined;
      }
      m = Date.UTC(y, mo, day, h + 1);
    }
  }
  return undefined;
}
