import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { readCompose, type ComposeService } from '../cli/helpers/compose.ts';
import { ROOT } from '../cli/helpers/gc.ts';

/**
 * docker-compose.yml's `cluster` profile (issue #20) is the topology test/cluster/topology.test.ts runs
 * with local processes: three clustered NATS nodes with JetStream, two supervisors of one gc cluster on
 * all three (replicas 3), each advertising its own address, sharing the cities volume, behind one port.
 */
type Service = ComposeService & { profiles?: string[] };
const compose = readCompose();
const services = compose.services as Record<string, Service>;
const inProfile = Object.entries(services).filter(([, s]) => s.profiles?.includes('cluster'));

t.test('the cluster profile leaves the default services alone', async (t) => {
  t.notOk(services.nats!.profiles, 'nats stays in the default profile');
  t.notOk(services.supervisor!.profiles, 'so does the supervisor');
  t.same(inProfile.map(([name]) => name).sort(), ['gateway', 'nats-1', 'nats-2', 'nats-3', 'sup-1', 'sup-2']);
});

t.test('three NATS nodes form one JetStream cluster', async (t) => {
  for (const n of [1, 2, 3]) {
    const cmd = services[`nats-${n}`]!.command ?? [];
    const arg = (flag: string) => cmd[cmd.indexOf(flag) + 1];
    t.ok(cmd.includes('-js'), `nats-${n} runs JetStream`);
    t.equal(arg('-n'), `nats-${n}`, 'a server name of its own');
    t.equal(arg('--cluster_name'), 'gc');
    t.equal(
      arg('--routes'),
      'nats://nats-1:6222,nats://nats-2:6222,nats://nats-3:6222',
      'routes to all three',
    );
    t.ok(
      services[`nats-${n}`]!.volumes?.some((v) => v.endsWith(':/data')),
      'its store on a volume',
    );
  }
});

t.test('two supervisors of one gc cluster, each advertising itself, sharing the cities', async (t) => {
  for (const n of [1, 2]) {
    const s = services[`sup-${n}`]!;
    const env = s.environment ?? {};
    t.equal(env.GC_CLUSTER, 'gc');
    t.equal(env.GC_NATS_URL, 'nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222', 'all three nodes');
    t.equal(env.GC_NATS_REPLICAS, '3', 'streams and buckets survive a node');
    t.equal(env.GC_ADVERTISE_URL, `http://sup-${n}:8372`, 'forwarded requests reach it by service name');
    t.match(env.GC_API_TOKEN, /GC_API_TOKEN/, 'the token comes from the environment');
    t.ok(s.volumes?.includes('gc-cities:/cities'), 'cities at the same path on both (adoption finds them)');
    t.ok(
      s.volumes?.some((v) => v === `sup-${n}-home:/data/gc`),
      'a home of its own',
    );
    t.same(
      Object.keys(s.depends_on ?? {}).sort(),
      n === 1 ? ['nats-1', 'nats-2', 'nats-3'] : ['nats-1', 'nats-2', 'nats-3', 'sup-1'],
      'all three nodes (sup-2 also waits for sup-1)',
    );
  }
});

t.test('one port in front of both', async (t) => {
  const gateway = services.gateway!;
  t.same(
    gateway.ports,
    ['127.0.0.1:${GC_CLUSTER_PUBLISH_PORT:-8373}:8372'],
    'published on loopback, beside the single supervisor’s 8372 (GC_CLUSTER_PUBLISH_PORT moves it)',
  );
  const mount = gateway.volumes?.[0]?.split(':')[0];
  const conf = readFileSync(join(ROOT, mount!), 'utf8');
  t.match(conf, /server sup-1:8372/);
  t.match(conf, /server sup-2:8372/);
  t.match(conf, /proxy_buffering off;/, 'SSE passes unbuffered');
});
