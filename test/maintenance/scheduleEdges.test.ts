/**
 * `[maintenance.dolt] interval` of city.toml must be a Go duration string: schedule.test.ts has the bad
 * strings, this the values of other TOML types, which a check on their text would let through.
 */
import t from 'tap';
import { maintenanceConfigOf } from '../../machines/maintenance/schedule.ts';

const refusal = {
  message: 'city.toml: [maintenance.dolt] interval must be a positive Go duration (e.g. "168h")',
};

t.test('an interval that is not a string is refused, whatever its text reads', async (t) => {
  // A hand-edited list (`interval = ["5m", "x"]`) is a typo, not a duration, even where its text looks like one.
  for (const interval of [['5m', 'x'], ['1h'], { h: 1 }, true, 3600, new Date(0)])
    t.throws(
      () => maintenanceConfigOf({ maintenance: { dolt: { interval } } }),
      refusal,
      JSON.stringify(interval),
    );
});
