import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { eventually } from '../helpers/supervisor.ts';
import { workCity } from './helpers.ts';

/** `gc runtime drain-ack` from inside a real session ends it; outside a session it is one line, exit 1. */

t.setTimeout(120_000);

t.test('gc runtime drain-ack closes an ephemeral session from inside it', async (t) => {
  const start = `GC_SESSION_ORIGIN=ephemeral gc runtime drain-ack > ack.txt 2>&1; sleep 600`;
  const city = await workCity(t, { startCommand: start });
  const made = await city.sup.call('POST', `/v0/city/${city.name}/sessions`, { alias: 'worker' });
  t.ok(made.status < 300, JSON.stringify(made.body));
  const id = 'worker'; // the alias addresses the session like its id
  // The session ran (it wrote ack.txt) before it can be seen gone: a poll before its start proves nothing.
  await eventually(async () => existsSync(join(city.dir, 'ack.txt')), 30_000);
  await eventually(async () => {
    const s = await city.sup.call('GET', `/v0/city/${city.name}/session/${id}`);
    // A closed session no longer answers to its alias.
    return s.status === 404 || (s.body as { state?: string }).state === 'closed';
  }, 30_000).catch(async (e: Error) => {
    const ack = existsSync(join(city.dir, 'ack.txt'))
      ? readFileSync(join(city.dir, 'ack.txt'), 'utf8')
      : '(none)';
    const s = await city.sup.call('GET', `/v0/city/${city.name}/session/${id}`);
    throw new Error(`${e.message}; ack.txt: ${ack}; session: ${JSON.stringify(s.body).slice(0, 400)}`);
  });
  t.pass('the session closed');
  t.ok(existsSync(join(city.dir, 'ack.txt')));
  t.equal(
    readFileSync(join(city.dir, 'ack.txt'), 'utf8'),
    'Drain acknowledged. Controller will stop this session.\n',
  );

  const outside = await city.gc(['runtime', 'drain-ack'], { GC_SESSION_ID: '', GC_ALIAS: '' });
  t.same(
    [outside.code, outside.stdout, outside.stderr],
    [1, '', 'gc runtime drain-ack: not in session context (GC_ALIAS/GC_SESSION_ID not set)\n'],
  );
  const bad = await city.gc(['runtime', 'undrainx', 'x']);
  t.same([bad.code, bad.stderr], [1, 'gc runtime: unknown subcommand "undrainx"\n']);
});

t.test('gc runtime undrain answers for a running session and refuses one that is not', async (t) => {
  const city = await workCity(t);
  const made = await city.sup.call('POST', `/v0/city/${city.name}/sessions`, { alias: 'worker' });
  t.ok(made.status < 300, JSON.stringify(made.body));
  await eventually(async () => {
    const s = await city.sup.call('GET', `/v0/city/${city.name}/session/worker`);
    return (s.body as { running?: boolean }).running === true;
  }, 30_000);
  const ok = await city.gc(['runtime', 'undrain', 'worker']);
  t.same([ok.code, ok.stdout, ok.stderr], [0, "Undrained session 'worker'\n", '']);
  const still = await city.sup.call('GET', `/v0/city/${city.name}/session/worker`);
  t.equal((still.body as { running?: boolean }).running, true, 'the session still runs');
  const none = await city.gc(['runtime', 'undrain']);
  t.same([none.code, none.stdout, none.stderr], [1, '', 'gc runtime undrain: accepts 1 arg(s)\n']);
  const missing = await city.gc(['runtime', 'undrain', 'nobody']);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /^gc runtime undrain: [^\n]+\n$/);
});
