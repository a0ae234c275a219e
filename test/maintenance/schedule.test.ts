/**
 * The store maintenance schedule's pure rules (machines/maintenance/schedule.ts): `[maintenance.dolt]` read
 * from city.toml, when the next run starts, and the status history's ring of 16.
 */
import t from 'tap';
import {
  DEFAULT_INTERVAL_MS,
  HISTORY_SIZE,
  maintenanceConfigOf,
  nextRunAt,
  pushHistory,
} from '../../machines/maintenance/schedule.ts';

const HOUR = 3_600_000;

t.test('[maintenance.dolt]: off and weekly unless city.toml says otherwise', async (t) => {
  t.equal(DEFAULT_INTERVAL_MS, 168 * HOUR);
  t.same(maintenanceConfigOf({}), { enabled: false, intervalMs: 168 * HOUR });
  t.same(maintenanceConfigOf({ maintenance: {} }), { enabled: false, intervalMs: 168 * HOUR });
  t.same(maintenanceConfigOf({ maintenance: { dolt: { enabled: true } } }), {
    enabled: true,
    intervalMs: 168 * HOUR,
  });
  t.same(maintenanceConfigOf({ maintenance: { dolt: { enabled: true, interval: '2h30m' } } }), {
    enabled: true,
    intervalMs: 2.5 * HOUR,
  });
  // Only the boolean true turns it on: a string from a hand-edited file does not.
  t.same(maintenanceConfigOf({ maintenance: { dolt: { enabled: 'true' } } }).enabled, false);
});

t.test('an interval that is not a positive Go duration is refused, naming the key', async (t) => {
  for (const interval of ['soon', '0s', '-1h', 3600, ''])
    t.throws(
      () => maintenanceConfigOf({ maintenance: { dolt: { interval } } }),
      { message: 'city.toml: [maintenance.dolt] interval must be a positive Go duration (e.g. "168h")' },
      JSON.stringify(interval),
    );
});

t.test('the next run: at once with no last run or a stale one, else one jittered interval on', async (t) => {
  const now = 1_000 * HOUR;
  t.equal(nextRunAt(undefined, 10 * HOUR, now, 1), now);
  t.equal(nextRunAt(now - 16 * HOUR, 10 * HOUR, now, 1), now, 'older than 1.5 intervals');
  t.equal(
    nextRunAt(now - 15 * HOUR, 10 * HOUR, now, 1),
    now,
    'exactly 1.5 intervals: the interval is long past, so now',
  );
  t.equal(nextRunAt(now - 2 * HOUR, 10 * HOUR, now, 1), now + 8 * HOUR);
  t.equal(nextRunAt(now - 2 * HOUR, 10 * HOUR, now, 0.9), now + 7 * HOUR);
  t.equal(nextRunAt(now - 2 * HOUR, 10 * HOUR, now, 1.1), now + 9 * HOUR);
  t.equal(nextRunAt(now, 10 * HOUR, now, 1), now + 10 * HOUR);
});

t.test('the history keeps the newest sixteen runs, oldest first', async (t) => {
  t.equal(HISTORY_SIZE, 16);
  t.same(pushHistory([], 'a'), ['a']);
  const full = Array.from({ length: 16 }, (_, i) => i);
  t.same(
    pushHistory(full, 16),
    Array.from({ length: 16 }, (_, i) => i + 1),
  );
  const before = [1, 2];
  t.same(pushHistory(before, 3), [1, 2, 3]);
  t.same(before, [1, 2], 'the history passed in is left alone');
});
