import t from 'tap';
import { cronMatches, MINUTE, nextCronMatch, parseCron, type Cron } from '../../machines/orders/cron.ts';
import { parseOrder } from '../../machines/orders/order.ts';
import { evaluate } from '../../machines/orders/schedule.ts';

/**
 * nextCronMatch skips months, days and hours that cannot match: it must agree with a walk over every
 * minute. Schedules and instants come from a seeded generator, so a failure is reproducible.
 */

let seed = 0x5eed;
const rand = (n: number) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
const field = (lo: number, hi: number): string => {
  switch (rand(5)) {
    case 0:
      return '*';
    case 1:
      return String(lo + rand(hi - lo + 1));
    case 2: {
      const a = lo + rand(hi - lo + 1);
      return `${a}-${Math.min(hi, a + rand(4))}`;
    }
    case 3:
      return `*/${1 + rand(7)}`;
    default:
      return [lo + rand(hi - lo + 1), lo + rand(hi - lo + 1)].join(',');
  }
};

const walk = (cron: Cron, from: number, until: number): number | undefined => {
  for (let m = Math.ceil(from / MINUTE) * MINUTE; m <= until; m += MINUTE) if (cronMatches(cron, m)) return m;
  return undefined;
};

t.test('nextCronMatch agrees with a minute-by-minute walk', async (t) => {
  const T0 = Date.parse('2030-01-01T00:00:00Z');
  let compared = 0;
  for (let i = 0; i < 300; i++) {
    const source = [field(0, 59), field(0, 23), field(1, 31), field(1, 12), field(0, 6)].join(' ');
    const cron = parseCron(source);
    if (typeof cron === 'string') throw new Error(`${source}: ${cron}`);
    const from = T0 + rand(400 * 24 * 60) * MINUTE + rand(60_000);
    const until = from + rand(40) * 24 * 60 * MINUTE;
    t.equal(nextCronMatch(cron, from, until), walk(cron, from, until), source);
    compared++;
  }
  t.equal(compared, 300);
  const feb29 = parseCron('0 12 29 2 *') as Cron;
  t.equal(
    nextCronMatch(feb29, T0, T0 + 3 * 366 * 24 * 60 * MINUTE),
    Date.parse('2032-02-29T12:00:00Z'),
    'a leap day, two years on',
  );
});

t.test('an order enabled after slots passed while disabled does not owe them', async (t) => {
  const T0 = Date.parse('2030-01-01T00:00:00Z');
  const r = parseOrder(
    'h',
    'orders/h.toml',
    '[order]\nformula = "f"\ngate = "cron"\nschedule = "0 * * * *"\n',
  );
  if (!r.ok) throw new Error('parse');
  const now = T0 + 5 * 60 * MINUTE + 30 * MINUTE; // 05:30, last fired 00:00
  t.match(evaluate(r.order, { lastSlot: T0 }, now), { due: true, fire: [T0 + 5 * 60 * MINUTE] });
  t.match(
    evaluate(r.order, { lastSlot: T0, since: T0 + 5 * 60 * MINUTE + 10 * MINUTE }, now),
    { due: false, fire: [], reason: 'cron: schedule not matched' },
    'enabled at 05:10: the 01:00 to 05:00 slots passed while disabled',
  );
  t.match(
    evaluate(r.order, { lastSlot: T0, since: T0 + 3 * 60 * MINUTE + 10 * MINUTE }, now),
    { due: true, fire: [T0 + 5 * 60 * MINUTE], skipped: { count: 1, from: T0 + 4 * 60 * MINUTE } },
    'enabled at 03:10: 04:00 and 05:00 are owed (catch_up latest)',
  );
});
