import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { withJetStream } from '../helpers/nats.ts';
import { interpolated, readCompose } from './helpers/compose.ts';
import { jsonLines, runGc } from './helpers/gc.ts';
import { startSupervisorProc } from './helpers/supervisorProc.ts';

/**
 * docker-compose.yml's topology without Docker: a private `nats-server -js` (never the system one) in place
 * of the `nats` service, and the supervisor run with the `supervisor` service's command and environment
 * (its service addresses and volume paths mapped to the local ones). A create → wait → events round trip
 * with the gc binary proves the pieces fit; a restart proves the events live in JetStream.
 */

t.setTimeout(5 * 60_000);

const compose = readCompose();
const service = compose.services.supervisor!;

t.test('create, wait and read events through the compose topology', async (t) => {
  const nats = await withJetStream(t);
  if (!nats) return;
  const command = service.command ?? [];
  t.same(
    command.slice(0, 4),
    ['node', 'bin/gc.js', 'supervisor', 'run'],
    'the service runs gc supervisor run',
  );
  const env = interpolated(service.environment);
  t.equal(env.GC_NATS_URL, 'nats://nats:4222');
  env.GC_NATS_URL = nats.url; // the `nats` service, here
  delete env.GC_HOME; // the volume path: the helper gives each run its own home
  // The service binds 0.0.0.0 (a container publishes nothing else); only the port differs, so that
  // tests never take 8372.
  const sup = await startSupervisorProc(t, { env, args: command.slice(4) });
  t.notMatch(sup.log(), /mutation endpoints disabled/, 'GC_ALLOW_MUTATIONS keeps the API writable');

  // The compose health check, pointed at this port.
  const health = (service.healthcheck?.test ?? [])
    .slice(1)
    .map((a) => a.replace(':8372/', `:${new URL(sup.url).port}/`));
  const code = await new Promise<number | null>((resolve) =>
    spawn(health[0]!, health.slice(1), { stdio: 'ignore' }).once('exit', resolve),
  );
  t.equal(code, 0, 'the health check passes');

  const gc = (...args: string[]) => runGc(args, { env: sup.env });
  const dir = join(sup.cities, 'harbor');
  const created = await gc('city', 'create', dir, '--start-command', 'sleep 600', '--wait');
  t.equal(created.code, 0, created.stderr);
  const [result] = jsonLines(created.stdout);
  t.match(result, {
    type: 'request.result.city.create',
    city: 'harbor',
    payload: { name: 'harbor', path: dir },
  });
  const requestId = (result!.payload as { request_id: string }).request_id;

  const check = async (when: string) => {
    const city = await gc('events', '--city', 'harbor', '--type', 'city.created');
    t.match(jsonLines(city.stdout), [{ type: 'city.created', subject: 'harbor' }], `${when}: city log`);
    const sup2 = await gc(
      'events',
      '--payload-match',
      `request_id=${requestId}`,
      '--type',
      'request.result.city.create',
    );
    t.match(
      jsonLines(sup2.stdout),
      [{ city: 'harbor', payload: { request_id: requestId } }],
      `${when}: supervisor log`,
    );
  };
  await check('live');
  const streams = await readdir(join(nats.storeDir, 'jetstream'), { recursive: true });
  t.ok(
    streams.some((p) => p.endsWith('msgs')),
    'the events are in the private JetStream store',
  );
  await sup.stop('SIGTERM');
  await sup.start();
  await check('after a restart (replayed from JetStream)');
});

t.test('without GC_ALLOW_MUTATIONS the same topology is read-only', async (t) => {
  const nats = await withJetStream(t);
  if (!nats) return;
  const env: Record<string, string> = { ...interpolated(service.environment), GC_NATS_URL: nats.url };
  delete env.GC_HOME;
  delete env.GC_ALLOW_MUTATIONS;
  const sup = await startSupervisorProc(t, { env, args: (service.command ?? []).slice(4) });
  const r = await runGc(['city', 'create', join(sup.cities, 'x'), '--start-command', 'true'], {
    env: sup.env,
  });
  t.same([r.code, r.stdout], [1, '']);
  t.match(r.stderr, /^gc city create: read_only: /);
});
