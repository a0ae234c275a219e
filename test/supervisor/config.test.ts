import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';

/** A `$GC_HOME` with `supervisor.toml` holding `toml` (none when undefined); removed after `t`. */
function home(t: Test, toml?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gc-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  if (toml !== undefined) writeFileSync(join(dir, 'supervisor.toml'), toml);
  return dir;
}

t.test(
  'defaults: loopback, 8372, file journal, prefix gc, 15s heartbeat, 2s tick, read-only off-host',
  async (t) => {
    const config = loadConfig({ GC_HOME: home(t) });
    t.match(config, {
      bind: '127.0.0.1',
      port: 8372,
      natsUrl: undefined,
      natsPrefix: 'gc',
      heartbeatMs: 15_000,
      tickMs: 2000,
      allowMutations: false,
    });
  },
);

t.test('supervisor.toml, overridden by the environment, overridden by flags', async (t) => {
  const dir = home(
    t,
    [
      '[supervisor]',
      'bind = "0.0.0.0"',
      'port = 9000',
      'nats_url = "nats://toml:4222"',
      'nats_prefix = "fromtoml"',
      'heartbeat = "5s"',
      'patrol_interval = "1m"',
      'allow_mutations = true',
    ].join('\n'),
  );
  t.match(loadConfig({ GC_HOME: dir }), {
    bind: '0.0.0.0',
    port: 9000,
    natsUrl: 'nats://toml:4222',
    natsPrefix: 'fromtoml',
    heartbeatMs: 5000,
    tickMs: 60_000,
    allowMutations: true,
  });
  const env = { GC_HOME: dir, GC_NATS_PREFIX: 'host-b', GC_NATS_URL: 'nats://env:4222', GC_TICK: '250ms' };
  t.match(loadConfig(env), { natsPrefix: 'host-b', natsUrl: 'nats://env:4222', tickMs: 250 });
  t.match(loadConfig(env, { natsPrefix: 'flag_c', tickMs: 10 }), { natsPrefix: 'flag_c', tickMs: 10 });
});

t.test('invalid values stop start-up with the reason', async (t) => {
  const dir = home(t);
  t.throws(() => loadConfig({ GC_HOME: dir, GC_PORT: '70000' }), /invalid port 70000/);
  t.throws(() => loadConfig({ GC_HOME: dir, GC_TICK: 'soon' }), /invalid duration "soon"/);
  for (const prefix of ['gc.ev', 'a b', 'x>', 'p'.repeat(33)]) {
    t.throws(
      () => loadConfig({ GC_HOME: dir, GC_NATS_PREFIX: prefix }),
      { message: `invalid nats prefix ${JSON.stringify(prefix)} (1 to 32 letters, digits, "_" or "-")` },
      `refuses ${JSON.stringify(prefix)}`,
    );
  }
});
