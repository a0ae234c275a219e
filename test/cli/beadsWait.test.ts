import t from 'tap';
import { workCity } from '../work/helpers.ts';

/**
 * `gc beads health [--quiet]` reports the built-in bead store's health from the API; `gc beads city
 * use-external|use-managed` and `gc wait list|inspect|cancel|ready` (upstream's Dolt switches and session
 * waits, which this supervisor does not have) exit 2 with one line saying so, whatever their arguments.
 */

t.setTimeout(120_000);

t.test('gc beads and gc wait', async (t) => {
  const city = await workCity(t, { runtime: 'subprocess' });

  await t.test('beads health: the store answers, at its journal index', async (t) => {
    const made = await city.bd(['create', 'Something', '--silent']);
    t.equal(made.code, 0, made.stderr);
    const r = await city.gc(['beads', 'health']);
    t.equal(r.code, 0, r.stderr);
    const index = (await city.sup.call('GET', `/v0/city/${city.name}/beads?limit=1`)).headers.get(
      'x-gc-index',
    );
    t.equal(r.stdout, `Bead store for ${city.name}: healthy (built-in, file journal, index ${index})\n`);
    const quiet = await city.gc(['beads', 'health', '--quiet']);
    t.same([quiet.code, quiet.stdout, quiet.stderr], [0, '', '']);
    const down = await city.gc(['beads', 'health', '--quiet'], { GC_API: 'http://127.0.0.1:1' });
    t.equal(down.code, 1);
    t.match(down.stderr, /^gc beads health: cannot reach http:\/\/127\.0\.0\.1:1\/.*\n$/);
    const gone = await city.gc(['beads', 'health'], { GC_CITY: 'nowhere' });
    t.equal(gone.code, 1);
    t.match(gone.stderr, /^gc beads health: not_found: .*nowhere\n$/);
  });

  await t.test('the Dolt endpoint switches exit 2: the store is built in', async (t) => {
    for (const verb of ['use-external', 'use-managed']) {
      const r = await city.gc(['beads', 'city', verb, '--host', 'db', '--dry-run']);
      t.same(
        [r.code, r.stdout, r.stderr],
        [
          2,
          '',
          `gc beads city ${verb}: not supported: this supervisor’s bead store is built in (no Dolt endpoint to switch); see "gc beads health"\n`,
        ],
        verb,
      );
    }
  });

  await t.test('the wait commands exit 2: there is no waits API', async (t) => {
    for (const args of [['list'], ['inspect', 'gc-1'], ['cancel', 'gc-1'], ['ready', 'gc-1', '--json']]) {
      const r = await city.gc(['wait', ...args]);
      t.same(
        [r.code, r.stdout, r.stderr],
        [
          2,
          '',
          `gc wait ${args[0]}: not supported: this supervisor has no session waits (no waits API; see docs/compatibility.md)\n`,
        ],
        args.join(' '),
      );
    }
  });
});
