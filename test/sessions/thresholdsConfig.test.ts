/** city.toml's `[session]` table: durations and counts become the session thresholds; a bad one names its key. */
import t from 'tap';
import { cityConfigOf } from '../../actors/config/cityConfig.ts';
import { thresholdsFrom } from '../../actors/sessions/startSessionService.ts';

t.test('a [session] table sets the thresholds', async (t) => {
  const config = cityConfigOf({
    workspace: { name: 'c', provider: 'mock' },
    session: { idle_timeout: '30m', startup_timeout: '90s', max_wake_attempts: 3, drain_timeout: 250 },
  });
  t.same(thresholdsFrom(config.session ?? {}), {
    idleTimeoutMs: 30 * 60_000,
    startupTimeoutMs: 90_000,
    maxWakeAttempts: 3,
    drainTimeoutMs: 250,
  });
  t.same(thresholdsFrom({}), {});
});

t.test('a bad value or an unknown key is an error naming it', async (t) => {
  t.throws(() => thresholdsFrom({ idle_timeout: 'soon' }), /\[session\] idle_timeout: invalid duration/);
  t.throws(() => thresholdsFrom({ max_wake_attempts: -1 }), /\[session\] max_wake_attempts/);
  t.throws(() => thresholdsFrom({ idle_timout: '1m' }), /\[session\] idle_timout: unknown key/);
});
