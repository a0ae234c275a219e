import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';

/** The cluster's settings: supervisor.toml keys, overridden by the environment. */
function home(t: Test, toml?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gc-cluster-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  if (toml !== undefined) writeFileSync(join(dir, 'supervisor.toml'), toml);
  return dir;
}

t.test(
  'a lone supervisor by default: no token, no cluster, 10 s lease, forwarding on, one replica',
  async (t) => {
    t.match(loadConfig({ GC_HOME: home(t) }), {
      apiToken: undefined,
      cluster: undefined,
      advertiseUrl: undefined,
      leaseTtlMs: 10_000,
      forward: true,
      natsReplicas: 1,
    });
  },
);

t.test('supervisor.toml sets them, the environment overrides it', async (t) => {
  const dir = home(
    t,
    [
      '[supervisor]',
      'api_token = "from-toml"',
      'cluster = "east"',
      'advertise_url = "http://sup-1:8372"',
      'lease_ttl = "4s"',
      'forward = false',
      'nats_replicas = 3',
    ].join('\n'),
  );
  t.match(loadConfig({ GC_HOME: dir }), {
    apiToken: 'from-toml',
    cluster: 'east',
    advertiseUrl: 'http://sup-1:8372',
    leaseTtlMs: 4000,
    forward: false,
    natsReplicas: 3,
  });
  t.match(
    loadConfig({
      GC_HOME: dir,
      GC_API_TOKEN: 'env',
      GC_CLUSTER: 'west',
      GC_FORWARD: '1',
      GC_LEASE_TTL: '900ms',
    }),
    { apiToken: 'env', cluster: 'west', forward: true, leaseTtlMs: 900 },
  );
  t.match(
    loadConfig({ GC_HOME: dir, GC_API_TOKEN: '' }),
    { apiToken: 'from-toml' },
    'an empty variable is unset',
  );
});

t.test('invalid cluster settings stop start-up with the reason', async (t) => {
  const dir = home(t);
  t.throws(() => loadConfig({ GC_HOME: dir, GC_CLUSTER: 'a.b' }), /invalid cluster name "a.b"/);
  t.throws(() => loadConfig({ GC_HOME: dir, GC_NATS_REPLICAS: '2' }), /invalid nats replicas 2/);
  t.throws(() => loadConfig({ GC_HOME: dir, GC_LEASE_TTL: '100ms' }), /invalid lease ttl 100 ms/);
});
