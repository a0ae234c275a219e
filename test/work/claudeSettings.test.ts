import {
  mkdirSync,
  appendFileSync,
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { cityConfigOf } from '../../actors/config/cityConfig.ts';
import { launchCommand, sessionPreset } from '../../actors/sessions/templates.ts';
import { builtinPresets } from '../../actors/sessions/runtime/presets.ts';
import { until } from '../helpers/until.ts';
import { workCity } from './helpers.ts';

/**
 * Upstream launches Claude with `--settings <city>/.gc/settings.json`, the file gc writes its hooks into, on
 * every start: without it Claude never runs `gc prime --hook` or `gc hook --inject`.
 */

t.setTimeout(120_000);

t.test(
  'the launch command names the settings file for a preset that takes one, first start and resume',
  async (t) => {
    const claude = builtinPresets().claude!;
    const file = '/c/my city/.gc/settings.json';
    t.equal(
      launchCommand('claude', claude, { sessionKey: 'k1', firstStart: true, settingsFile: file }),
      "claude --settings '/c/my city/.gc/settings.json' --session-id k1",
    );
    t.equal(
      launchCommand('claude', claude, { sessionKey: 'k1', firstStart: false, settingsFile: file }),
      "claude --settings '/c/my city/.gc/settings.json' --resume k1",
    );
    t.equal(
      launchCommand('codex', builtinPresets().codex, { firstStart: true, settingsFile: file }),
      'codex',
      'a preset without a settings flag gets none',
    );
  },
);

t.test('a claude agent session is started with --settings pointing at the hooks gc installed', async (t) => {
  // A stand-in `claude` on the supervisor's PATH: records its arguments, shows Claude's prompt, stays up.
  const bin = mkdtempSync(join(tmpdir(), 'gc-fake-claude-'));
  t.teardown(() => rmSync(bin, { recursive: true, force: true }));
  const argvFile = join(bin, 'argv.txt');
  writeFileSync(
    join(bin, 'claude'),
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${argvFile}'\nprintf '\\342\\235\\257 \\n'\nexec sleep 600\n`,
  );
  chmodSync(join(bin, 'claude'), 0o755);
  const city = await workCity(t, {
    runtime: 'subprocess',
    supervisorEnv: { PATH: `${bin}:${process.env.PATH ?? ''}` },
  });

  const added = await city.sup.call('POST', `/v0/city/${city.name}/agents`, {
    name: 'worker',
    provider: 'claude',
  });
  t.equal(added.status, 201, JSON.stringify(added.body));
  const made = await city.gc(['session', 'new', 'worker', '--alias', 'w1', '--no-attach']);
  t.equal(made.code, 0, made.stderr);
  await until(
    'the stand-in claude to record its arguments',
    () => Promise.resolve(existsSync(argvFile) && readFileSync(argvFile, 'utf8').length > 0),
    30_000,
    100,
  );

  const argv = readFileSync(argvFile, 'utf8').trimEnd().split('\n');
  const settings = join(city.dir, '.gc', 'settings.json');
  t.same(argv.slice(0, 2), ['--settings', settings], 'the settings flag comes first, with the city file');
  t.equal(argv[2], '--session-id', 'then the conversation id of a first start');
  const hooks = (
    JSON.parse(readFileSync(settings, 'utf8')) as {
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    }
  ).hooks;
  t.same(
    hooks.SessionStart?.flatMap((g) => g.hooks.map((h) => h.command)),
    ['gc prime --hook'],
    'the file it names holds the hooks gc installed',
  );
});

t.test("a session's preset is the city's provider, then its agent's readiness keys", async (t) => {
  const config = cityConfigOf({
    workspace: { name: 'c' },
    agent: [
      { name: 'plain', provider: 'claude' },
      { name: 'tuned', provider: 'claude', ready_prompt_prefix: 'READY>', ready_delay_ms: 250 },
    ],
  });
  config.providers = { mine: { ...builtinPresets().claude!, name: 'mine', command: 'my-claude' } };
  t.match(sessionPreset(config, { provider: 'claude', template: 'plain' }), {
    readyPromptPrefix: '❯ ',
    readyDelayMs: 10_000,
  });
  t.match(sessionPreset(config, { provider: 'claude', template: 'tuned' }), {
    readyPromptPrefix: 'READY>',
    readyDelayMs: 250,
    settingsFlag: '--settings',
  });
  t.match(
    sessionPreset(config, { provider: 'mine', template: 'plain' }),
    { command: 'my-claude', sessionIdFlag: '--session-id', settingsFlag: '--settings' },
    "a provider of the city's own keeps its base's flags",
  );
  t.equal(sessionPreset(config, { provider: 'nope', template: 'plain' }), undefined);
});

t.test("a session of the city's own provider based on claude starts with Claude's flags", async (t) => {
  const bin = mkdtempSync(join(tmpdir(), 'gc-fake-mine-'));
  t.teardown(() => rmSync(bin, { recursive: true, force: true }));
  const argvFile = join(bin, 'argv.txt');
  const cli = join(bin, 'my-claude');
  writeFileSync(
    cli,
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${argvFile}'\nprintf '\\342\\235\\257 \\n'\nexec sleep 600\n`,
  );
  chmodSync(cli, 0o755);
  const city = await workCity(t, { runtime: 'subprocess' });
  appendFileSync(
    join(city.dir, 'city.toml'),
    `\n[providers.mine]\nbase = "claude"\ncommand = "${cli}"\n\n[[agent]]\nname = "worker"\nprovider = "mine"\n` +
      'prompt_template = "prompts/worker.md"\n',
  );
  mkdirSync(join(city.dir, 'prompts'));
  writeFileSync(join(city.dir, 'prompts', 'worker.md'), 'You are the worker.\nRun gc hook.\n');
  // A hand-edited provider is read at start: restart the supervisor (the city comes back).
  await city.sup.stop('SIGTERM');
  await city.sup.start();
  await until(
    'the city to answer',
    async () => (await city.sup.call('GET', `/v0/city/${city.name}/agents`)).status === 200,
    30_000,
    200,
  );
  const made = await city.gc(['session', 'new', 'worker', '--alias', 'w1', '--no-attach']);
  t.equal(made.code, 0, made.stderr);
  await until(
    'the provider CLI to record its arguments',
    () => Promise.resolve(existsSync(argvFile) && readFileSync(argvFile, 'utf8').length > 0),
    30_000,
    100,
  );
  const argv = readFileSync(argvFile, 'utf8').trimEnd().split('\n');
  t.same(argv.slice(0, 3), ['--settings', join(city.dir, '.gc', 'settings.json'), '--session-id']);
  t.equal(argv.length, 4, 'no prompt in argv: a CLI that runs the hooks gets it from gc prime --hook');

  // Its SessionStart hook: gc prime --hook inside the session prints the beacon and the rendered template.
  const id = /^Session (\S+) created/.exec(made.stdout)?.[1];
  t.ok(id, made.stdout);
  const inSession = { GC_SESSION_ID: id, GC_ALIAS: 'w1', GC_AGENT: 'w1', GC_TEMPLATE: 'worker' };
  const primed = await city.gc(['prime', '--hook'], inSession);
  t.equal(primed.code, 0, primed.stderr);
  t.match(
    primed.stdout,
    /^\[alpha\] w1 • \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n\nYou are the worker\.\nRun gc hook\.\n$/,
  );
  const plain = await city.gc(['prime'], inSession);
  t.equal(plain.stdout, 'You are the worker.\nRun gc hook.\n', 'without --hook: the prompt alone');
  const elsewhere = await city.gc(['prime'], { GC_ALIAS: 'w1', GC_AGENT: 'w1', GC_TEMPLATE: 'worker' });
  t.match(elsewhere.stdout, /^# Gas City worker/, 'outside a session: the built-in worker prompt');
});
