import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { eventually } from '../helpers/supervisor.ts';
import { workCity } from './helpers.ts';

/**
 * The session environment contract on a real supervisor's tmux session: the identity and city variables,
 * bd's actor, and `gc`/`bd` on the session's PATH reaching the supervisor without flags.
 */

t.setTimeout(120_000);

t.test('a session knows its city and itself, and bd works in it without flags', async (t) => {
  const probe = `env > env.txt; command -v bd > which.txt; command -v gc >> which.txt; bd create "made inside" --json > bd.json 2> bd.err; gc hook > hook.txt 2>&1; echo done > done.txt; sleep 600`;
  const city = await workCity(t, { startCommand: probe });
  const made = await city.sup.call('POST', `/v0/city/${city.name}/sessions`, { alias: 'probe' });
  t.ok(made.status < 300, JSON.stringify(made.body));
  const done = join(city.dir, 'done.txt');
  await eventually(async () => existsSync(done), 30_000);
  const env = Object.fromEntries(
    readFileSync(join(city.dir, 'env.txt'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  t.match(env, {
    GC_CITY: city.name,
    GC_CITY_PATH: city.dir,
    GC_HOME: city.sup.home,
    GC_ALIAS: 'probe',
    GC_SESSION_ID: /\S/,
    GC_SESSION_NAME: /\S/,
    GC_TEMPLATE: /\S/,
    GC_AGENT: 'probe',
    GC_DIR: city.dir,
    BEADS_ACTOR: env.GC_SESSION_NAME,
  });
  t.notOk('GC_RIG' in env, 'a city session has no rig');
  t.same(
    readFileSync(join(city.dir, 'which.txt'), 'utf8').trim().split('\n'),
    [join(city.dir, '.gc', 'bin', 'bd'), join(city.dir, '.gc', 'bin', 'gc')],
    'bd and gc are on the PATH',
  );
  const bead = JSON.parse(readFileSync(join(city.dir, 'bd.json'), 'utf8')) as { id: string; title: string };
  t.equal(bead.title, 'made inside', readFileSync(join(city.dir, 'bd.err'), 'utf8'));
  const stored = await city.sup.call('GET', `/v0/city/${city.name}/bead/${bead.id}`);
  t.equal(stored.status, 200, 'the bead is in the city store');
  t.equal(
    readFileSync(join(city.dir, 'hook.txt'), 'utf8'),
    `gc hook: agent "${env.GC_TEMPLATE}" not found in config\n`,
    'gc reaches the API too',
  );
});
