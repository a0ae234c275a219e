import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { DEFAULT_API, DISCOVERY_FAILED } from '../../cli/discover.ts';
import { freePort } from '../helpers/natsServer.ts';
import { isolatedEnv, runGc } from './helpers/gc.ts';
import { StubApi } from './helpers/stubApi.ts';

/** Every `gc events` failure is one line on stderr, exit status 1, and nothing on stdout. */

async function home(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-cli-flags-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** An API address nothing listens on (a port the OS just handed out and took back). */
const NOWHERE = `http://127.0.0.1:${await freePort()}`;

t.test('flag errors are reported before any request, as one stderr line with exit 1', async (t) => {
  const env = isolatedEnv(await home(t), { GC_API: NOWHERE });
  const cases: [string[], string][] = [
    [['--after', '1', '--after-cursor', 'a:1'], '--after and --after-cursor are mutually exclusive'],
    [['--since', 'yesterday'], 'invalid --since "yesterday": invalid duration "yesterday"'],
    [['--since', '5'], 'invalid --since "5": missing unit in duration "5"'],
    [['--watch', '--timeout', 'soon'], 'invalid --timeout "soon": invalid duration "soon"'],
    [['--watch', '--timeout', '0'], 'invalid --timeout "0": must be greater than 0'],
    [['--payload-match', 'novalue'], 'invalid --payload-match "novalue": expected key=value'],
    [['--payload-match', '=v'], 'invalid --payload-match "=v": expected key=value'],
    [
      ['--after-cursor', 'garbage'],
      'invalid --after-cursor "garbage": expected name:seq pairs joined by ","',
    ],
    // Cursors the server would answer 400 for (a name twice, a seq past 2^53-1): refused before the request.
    [
      ['--after-cursor', 'a:1,a:2'],
      'invalid --after-cursor "a:1,a:2": expected name:seq pairs joined by ","',
    ],
    [
      ['--after-cursor', 'a:99999999999999999'],
      'invalid --after-cursor "a:99999999999999999": expected name:seq pairs joined by ","',
    ],
    [['--watch', '--follow'], '--watch and --follow are mutually exclusive'],
    [['--follow', '--seq'], '--follow and --seq are mutually exclusive'],
  ];
  for (const [args, message] of cases) {
    const r = await runGc(['events', ...args], { env });
    t.same([r.code, r.stdout, r.stderr], [1, '', `gc events: ${message}\n`], args.join(' '));
  }
});

t.test('oclif parse errors also end in one line and exit 1', async (t) => {
  const env = isolatedEnv(await home(t), { GC_API: NOWHERE });
  for (const args of [['--after', 'x'], ['--after', '-1'], ['--no-such-flag'], ['stray-arg']]) {
    const r = await runGc(['events', ...args], { env });
    t.equal(r.code, 1, args.join(' '));
    t.equal(r.stdout, '');
    t.match(r.stderr, /^gc( events)?: [^\n]+\n$/);
  }
});

t.test('cursor flags must match the scope', async (t) => {
  const stub = await new StubApi().listen();
  t.teardown(() => stub.close());
  stub.addCity('alpha');
  const env = isolatedEnv(await home(t), { GC_API: stub.url });
  const sup = await runGc(['events', '--after', '3'], { env, cwd: tmpdir() });
  t.same(
    [sup.code, sup.stdout, sup.stderr],
    [
      1,
      '',
      'gc events: --after is only valid when a city is in scope; use --after-cursor for supervisor events\n',
    ],
  );
  const city = await runGc(['events', '--city', 'alpha', '--after-cursor', 'alpha:1'], { env });
  t.same(
    [city.code, city.stdout, city.stderr],
    [1, '', 'gc events: --after-cursor is only valid in supervisor scope\n'],
  );
});

t.test('an explicit API that does not answer is reported as unreachable', async (t) => {
  const env = isolatedEnv(await home(t), { GC_API: NOWHERE });
  const r = await runGc(['events'], { env });
  t.same([r.code, r.stdout], [1, '']);
  t.equal(
    r.stderr,
    `gc events: cannot reach ${NOWHERE}/v0/events: connect ECONNREFUSED ${NOWHERE.slice(7)}\n`,
  );
});

t.test('auto-discovery failure names the fix', async (t) => {
  const probe = await fetch(`${DEFAULT_API}/health`).then(
    () => true,
    () => false,
  );
  if (probe) {
    t.comment(`something answers on ${DEFAULT_API}; a failed discovery cannot be tested here`);
    return;
  }
  const env = isolatedEnv(await home(t));
  for (const args of [['events'], ['events', '--seq'], ['events', '--follow'], ['cities']]) {
    const r = await runGc(args, { env });
    t.same([r.code, r.stdout, r.stderr], [1, '', `gc ${args[0]}: ${DISCOVERY_FAILED}\n`], args.join(' '));
  }
});
