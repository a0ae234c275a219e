import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { workCity } from '../work/helpers.ts';

/**
 * `gc doctor [--fix] [-v]` (the built binary) against a real supervisor: upstream's report (a line per
 * check, two-space indent, ✓/⚠/✗, name, " — ", message, " (fixed)"; hint lines; a blank line and the
 * summary), exit 1 iff a check failed, and --fix repairing the shims through POST /doctor/fix.
 */

t.setTimeout(120_000);

const CHECK = /^ {2}[✓⚠✗] [a-z-]+ — .+$/;

t.test('gc doctor', async (t) => {
  const city = await workCity(t, { runtime: 'subprocess' });
  const bin = join(city.dir, '.gc', 'bin');
  const toml = join(city.dir, 'city.toml');
  const original = readFileSync(toml, 'utf8');

  await t.test('a healthy city: every check passes, exit 0', async (t) => {
    const r = await city.gc(['doctor']);
    t.equal(r.code, 0, r.stdout + r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    const checks = lines.slice(0, -2);
    for (const line of checks) t.match(line, CHECK);
    t.same(
      checks.map((l) => l.slice(4, l.indexOf(' — '))),
      ['supervisor', 'city', 'journal', 'config', 'providers', 'shims', 'custom-types'],
    );
    const { version } = (await city.sup.call('GET', '/health')).body as { version: string };
    t.equal(checks[0], `  ✓ supervisor — reachable at ${city.sup.url} (version ${version})`);
    t.match(checks[1]!, `  ✓ city — ${city.name} running at `);
    const head = (await city.sup.call('GET', `/v0/city/${city.name}/events?limit=1`)).headers.get(
      'x-gc-index',
    );
    t.equal(checks[2], `  ✓ journal — file journal healthy (${city.name} at seq ${head})`);
    t.equal(lines.at(-2), '', 'a blank line before the summary');
    t.equal(lines.at(-1), `${checks.length} passed`);
    t.equal(r.stderr, '');
  });

  await t.test('a missing shim fails the check; --fix rewrites it', async (t) => {
    rmSync(join(bin, 'bd'));
    const broken = await city.gc(['doctor']);
    t.equal(broken.code, 1, 'a failed check is exit 1');
    t.match(broken.stdout, /\n {2}✗ shims — bd shim missing\n {4}hint: run "gc doctor --fix"/);
    t.match(broken.stdout, /\n\n6 passed, 1 failed\n$/);
    const fixed = await city.gc(['doctor', '--fix']);
    t.equal(fixed.code, 0, fixed.stdout);
    t.match(fixed.stdout, `\n  ✓ shims — gc and bd shims in ${bin} (fixed)\n`);
    t.match(fixed.stdout, /\n\n6 passed, 1 fixed\n$/);
    t.ok(existsSync(join(bin, 'bd')), 'the shim is back');
    const again = await city.gc(['doctor']);
    t.same([again.code, again.stdout.trimEnd().split('\n').at(-1)], [0, '7 passed']);
  });

  await t.test('config warnings warn (details with -v), errors fail', async (t) => {
    t.teardown(() => writeFileSync(toml, original));
    appendFileSync(toml, '\n[workspace_typo]\nx = 1\n');
    const warned = await city.gc(['doctor']);
    t.equal(warned.code, 0, 'a warning is not a failure');
    t.match(warned.stdout, /\n {2}⚠ config — city\.toml is valid, with 1 warning\(s\)\n {4}hint: /);
    t.match(warned.stdout, /\n\n6 passed, 1 warnings\n$/);
    t.notMatch(warned.stdout, /workspace_typo/, 'details only with -v');
    const verbose = await city.gc(['doctor', '-v']);
    t.match(verbose.stdout, /⚠ config — [^\n]*\n {6}[^\n]*workspace_typo/);
    appendFileSync(toml, '\n[[agent]]\nname = "ghost"\nprovider = "no-such-provider"\n');
    const failed = await city.gc(['doctor']);
    t.equal(failed.code, 1);
    t.match(failed.stdout, /\n {2}✗ config — city\.toml has \d+ error\(s\)\n/);
  });

  await t.test('no city in scope, and a supervisor that is down', async (t) => {
    const none = await city.gc(['doctor'], { GC_CITY: '' });
    t.equal(none.code, 1);
    t.match(none.stdout, /\n {2}✗ city — no city in scope\n {4}hint: /);
    const down = await city.gc(['doctor'], { GC_API: 'http://127.0.0.1:1' });
    t.equal(down.code, 1);
    t.match(down.stdout, /^ {2}✗ supervisor — cannot reach the supervisor at http:\/\/127\.0\.0\.1:1: .+\n/);
    t.match(down.stdout, /\n\n1 failed\n$/);
    t.equal(down.stderr, '');
  });
});
