import t from 'tap';
import { readCompose, readDockerfile } from './helpers/compose.ts';

/**
 * The structure the deployment depends on, checked without an engine in every `npm test`;
 * compose.topology.test.ts runs the same topology with local processes, and the compose tier
 * (test/compose/compose.tier.ts, run by .ci/run) runs the files themselves on a real engine.
 */

const compose = readCompose();
const nats = compose.services.nats!;
const sup = compose.services.supervisor!;

t.test('NATS runs an upstream >= 2.10 server with JetStream on a persistent named volume', async (t) => {
  const m = /^nats:(\d+)\.(\d+)/.exec(nats.image ?? '');
  t.ok(m, `image ${nats.image}`);
  t.ok(Number(m![1]) > 2 || (Number(m![1]) === 2 && Number(m![2]) >= 10), 'version 2.10 or newer');
  const cmd = nats.command ?? [];
  t.ok(cmd.includes('-js'), 'JetStream enabled');
  t.equal(cmd[cmd.indexOf('-sd') + 1], '/data', 'store dir /data');
  const mount = (nats.volumes ?? []).find((v) => v.endsWith(':/data'));
  t.ok(mount, '/data is mounted');
  const volume = mount!.split(':')[0]!;
  t.notMatch(volume, /^[./]/, 'a named volume, not a bind mount');
  t.ok(compose.volumes && volume in compose.volumes, 'declared at the top level');
});

t.test('NATS is health-checked on its monitoring port 8222 /healthz, JetStream included', async (t) => {
  const cmd = nats.command ?? [];
  t.equal(cmd[cmd.indexOf('-m') + 1], '8222', 'monitoring port enabled');
  t.match((nats.healthcheck?.test ?? []).join(' '), /:8222\/healthz\?js-enabled-only=true/);
});

t.test(
  'the supervisor is built here, runs gc supervisor run bound to 0.0.0.0, and talks to nats',
  async (t) => {
    t.ok(
      sup.build === '.' || (typeof sup.build === 'object' && sup.build.context === '.'),
      'built from this repo',
    );
    t.same(sup.command, ['node', 'bin/gc.js', 'supervisor', 'run', '--bind', '0.0.0.0']);
    const env = sup.environment ?? {};
    t.equal(env.GC_NATS_URL, 'nats://nats:4222');
    t.equal(env.GC_HOME, '/data/gc');
    const home = (sup.volumes ?? []).find((v) => v.endsWith(':/data/gc'));
    t.ok(home && compose.volumes && home.split(':')[0]! in compose.volumes, 'GC_HOME is a named volume');
    t.same(sup.depends_on?.nats, { condition: 'service_healthy' }, 'waits for a healthy nats');
    t.match((sup.healthcheck?.test ?? []).join(' '), /127\.0\.0\.1:8372\/health/);
  },
);

t.test(
  'the cities live on a named volume at /cities, apart from GC_HOME, and the image owns it',
  async (t) => {
    const mounts = (sup.volumes ?? []).map((v) => v.split(':'));
    const cities = mounts.find(([, target]) => target === '/cities');
    t.ok(cities, '/cities is mounted');
    t.notMatch(cities![0]!, /^[./]/, 'a named volume, not a bind mount');
    t.ok(compose.volumes && cities![0]! in compose.volumes, 'declared at the top level');
    const home = mounts.find(([, target]) => target === '/data/gc');
    t.not(cities![0], home?.[0], 'not the GC_HOME volume');
    const lines = readDockerfile();
    t.ok(
      lines.some((l) => /^RUN mkdir -p .*\/cities\b/.test(l) && /chown -R node:node .*\/cities\b/.test(l)),
      'the image creates /cities for the node user (a fresh named volume copies its owner)',
    );
    const volume = lines.find((l) => l.startsWith('VOLUME '));
    t.ok(volume && (JSON.parse(volume.slice(7)) as string[]).includes('/cities'), 'VOLUME /cities');
  },
);

t.test(
  'GC_ALLOW_MUTATIONS is decided deliberately: allowed only when the port is published on loopback',
  async (t) => {
    const allow = sup.environment?.GC_ALLOW_MUTATIONS;
    t.ok(allow === '0' || allow === '1', `set explicitly (${allow})`);
    const published = (sup.ports ?? []).filter((p) => p.endsWith(':8372'));
    t.ok(published.length > 0, 'port 8372 is published');
    if (allow === '1') {
      t.ok(
        published.every((p) => p.startsWith('127.0.0.1:')),
        'a mutable API is reachable from the host only',
      );
    }
  },
);

t.test(
  'the Dockerfile builds on a NODE_IMAGE argument (default node:20 slim) with npm ci and npm run build',
  async (t) => {
    const lines = readDockerfile();
    t.match(lines[0], /^ARG NODE_IMAGE=node:20[.-]\S*slim$/, 'the public base is the default');
    const froms = lines.filter((l) => l.startsWith('FROM '));
    t.same(froms, ['FROM ${NODE_IMAGE} AS build', 'FROM ${NODE_IMAGE} AS runtime'], 'two stages on it');
    t.ok(
      lines.some((l) => /^RUN npm ci\b/.test(l)),
      'npm ci',
    );
    t.ok(
      lines.some((l) => /^RUN npm run build\b/.test(l)),
      'npm run build',
    );
    t.ok(
      lines.some((l) => /^RUN npm prune --omit=dev\b/.test(l)),
      'the dev dependencies are pruned',
    );
    const runtime = lines.slice(lines.indexOf(froms[1]!));
    for (const dir of ['dist', 'bin', 'web', 'node_modules'])
      t.ok(
        runtime.some((l) => l.startsWith('COPY ') && l.endsWith(` ./${dir}`)),
        `the runtime stage has ${dir}/`,
      );
    t.ok(runtime.includes('USER node'), 'and runs as node');
    t.ok(lines.includes('EXPOSE 8372'));
    const cmd = lines.find((l) => l.startsWith('CMD '));
    t.same(JSON.parse(cmd!.slice(4)), sup.command, 'the image runs what compose runs');
    t.match(
      lines.find((l) => l.startsWith('HEALTHCHECK ')),
      /127\.0\.0\.1:8372\/health/,
    );
  },
);
