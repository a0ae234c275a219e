/**
 * `gc config`, `gc rig` and `gc provider` (the built binary) against the real app and a real config
 * service over a city's city.toml: what each command prints, that its writes land in city.toml through
 * the routes, and that refusals come back as one line on stderr with exit 1.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { configHarness, type ConfigHarness } from '../config/helpers.ts';
import { isolatedEnv, jsonLines, runGc } from './helpers/gc.ts';

t.setTimeout(5 * 60_000);

let url: Promise<string> | undefined;

async function setup(t: Test): Promise<{ h: ConfigHarness; env: NodeJS.ProcessEnv }> {
  const h = await configHarness(t);
  // The cities of this file share one app; it listens once.
  url ??= h.app.listen({ port: 0, host: '127.0.0.1' });
  return { h, env: isolatedEnv(h.dir, { GC_API: await url, GC_CITY: h.name }) };
}

t.test('gc config show, explain and validate', async (t) => {
  const { h, env } = await setup(t);
  const show = await runGc(['config', 'show'], { env });
  t.equal(show.code, 0, show.stderr);
  const [config] = jsonLines(show.stdout);
  t.match(config, { workspace: { name: 'demo' }, rigs: [{ name: 'app', prefix: 'zz' }] });
  const defaults = await runGc(['config', 'show', '--defaults'], { env });
  t.same((jsonLines(defaults.stdout)[0] as { agents: unknown[] }).agents, []);

  const explain = await runGc(['config', 'explain', '--prefix', 'rigs.app.'], { env });
  t.equal(explain.code, 0, explain.stderr);
  t.same(explain.stdout.split('\n'), [
    'PATH             ORIGIN  FILE',
    'rigs.app.name    city    city.toml',
    'rigs.app.path    city    city.toml',
    'rigs.app.prefix  patch   city.toml',
    '',
  ]);
  const json = await runGc(['config', 'explain', '--json'], { env });
  t.match(jsonLines(json.stdout)[0], { patches: { agents: 1, providers: 1, rigs: 1 } });

  const ok = await runGc(['config', 'validate'], { env });
  t.same([ok.code, ok.stdout, ok.stderr], [0, '', '']);
  await h.service.stop();
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    join(h.dir, 'city.toml'),
    '[workspace]\nname = "demo"\n\n[[agent]]\nname = "a"\nprovider = "nope"\n\n[wrokspace]\n',
  );
  const bad = await runGc(['config', 'validate'], { env });
  t.same(
    [bad.code, bad.stdout, bad.stderr],
    [
      1,
      'error: city.toml: agent[0] (a).provider: unknown provider "nope"\n' +
        'warning: city.toml: wrokspace: unknown field "wrokspace" (did you mean "workspace"?)\n',
      'gc config validate: 1 error in the configuration\n',
    ],
  );
});

t.test('gc rig: add, list, show, set, suspend, resume, restart, remove', async (t) => {
  const { h, env } = await setup(t);
  const repo = join(h.dir, 'lib');
  mkdirSync(repo);
  execFileSync('git', ['init', '--quiet', '-b', 'trunk', repo]);
  const add = await runGc(['rig', 'add', 'lib', '--path', 'lib', '--prefix', 'lb'], { env });
  t.same([add.code, add.stdout, add.stderr], [0, '{"status":"created","rig":"lib"}\n', '']);
  t.match(await h.toml(), /name = "lib"\npath = "lib"\nprefix = "lb"/);

  const list = await runGc(['rig', 'list', '--git'], { env });
  t.equal(list.code, 0);
  t.same(list.stdout.split('\n'), [
    'NAME  PATH  SUSPENDED  AGENTS  RUNNING  BRANCH',
    'app   app   no         1       0        -',
    'lib   lib   no         0       0        trunk',
    '',
  ]);
  t.match(list.stderr, /^gc rig list: rig app: git status: /, 'a rig without git is named on stderr');
  const asJson = await runGc(['rig', 'list', '--json'], { env });
  t.same(
    jsonLines(asJson.stdout).map((r) => r.name),
    ['app', 'lib'],
  );
  t.match(jsonLines((await runGc(['rig', 'show', 'lib'], { env })).stdout)[0], { name: 'lib', prefix: 'lb' });

  t.same(
    (await runGc(['rig', 'set', 'lib', '--default-branch', 'trunk'], { env })).stdout,
    '{"status":"ok"}\n',
  );
  t.match(jsonLines((await runGc(['rig', 'suspend', 'lib'], { env })).stdout)[0], {
    action: 'suspend',
    status: 'ok',
  });
  t.equal(
    (jsonLines((await runGc(['rig', 'show', 'lib'], { env })).stdout)[0] as { suspended: boolean }).suspended,
    true,
  );
  await runGc(['rig', 'resume', 'lib'], { env });
  t.match(jsonLines((await runGc(['rig', 'restart', 'app'], { env })).stdout)[0], {
    action: 'restart',
    killed: [],
  });
  t.same((await runGc(['rig', 'remove', 'lib'], { env })).stdout, '{"status":"ok"}\n');

  const gone = await runGc(['rig', 'show', 'lib'], { env });
  t.same([gone.code, gone.stdout, gone.stderr], [1, '', 'gc rig show: not_found: rig "lib" not found\n']);
  const twice = await runGc(['rig', 'add', 'app', '--path', 'x'], { env });
  t.same([twice.code, twice.stderr], [1, 'gc rig add: conflict: rig app already exists\n']);
  const nothing = await runGc(['rig', 'set', 'app'], { env });
  t.equal(nothing.code, 1);
  t.match(nothing.stderr, /nothing to change/);
  t.equal(
    (await h.configEvents()).length,
    5,
    'one event per write (restart writes nothing), none for the refusals',
  );
});

t.test('gc provider: add, list, show, set, remove', async (t) => {
  const { h, env } = await setup(t);
  const add = await runGc(
    ['provider', 'add', 'my-cli', '--command', 'echo', '--arg', 'a b', '--arg', 'c', '--env', 'K=V=W'],
    {
      env,
    },
  );
  t.same([add.code, add.stdout, add.stderr], [0, '{"status":"created","provider":"my-cli"}\n', '']);
  const show = jsonLines((await runGc(['provider', 'show', 'my-cli'], { env })).stdout)[0];
  t.same(show, {
    name: 'my-cli',
    builtin: false,
    city_level: true,
    command: 'echo',
    args: ['a b', 'c'],
    env: { K: 'V=W' },
  });
  const list = await runGc(['provider', 'list'], { env });
  const lines = list.stdout.split('\n');
  t.match(lines[0], /^NAME\s+BUILTIN\s+CITY\s+COMMAND$/);
  t.match(lines[1], /^claude\s+yes\s+yes\s+claude$/, 'claude is patched in this city');
  t.match(lines.at(-2), /^my-cli\s+no\s+yes\s+echo a b c$/);
  t.equal(jsonLines((await runGc(['provider', 'list', '--json'], { env })).stdout).length, 13);

  t.same(
    (await runGc(['provider', 'set', 'codex', '--ready-delay-ms', '8000'], { env })).stdout,
    '{"status":"ok"}\n',
  );
  t.match(jsonLines((await runGc(['provider', 'show', 'codex'], { env })).stdout)[0], {
    ready_delay_ms: 8000,
    city_level: true,
  });
  const builtin = await runGc(['provider', 'remove', 'mock'], { env });
  t.same(
    [builtin.code, builtin.stderr],
    [1, 'gc provider remove: conflict: provider mock is builtin and cannot be deleted\n'],
  );
  const inUse = await runGc(['provider', 'remove', 'fast'], { env });
  t.equal(inUse.code, 1);
  t.match(inUse.stderr, /^gc provider remove: .*unknown provider "fast"/);
  t.same((await runGc(['provider', 'remove', 'my-cli'], { env })).stdout, '{"status":"ok"}\n');
  t.notMatch(await h.toml(), /my-cli/);
  const badEnv = await runGc(['provider', 'add', 'x', '--command', 'y', '--env', 'novalue'], { env });
  t.same([badEnv.code, badEnv.stderr], [1, 'gc provider add: --env novalue: expected KEY=VALUE\n']);
});
