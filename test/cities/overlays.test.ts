/**
 * Overlays as upstream copies them (internal/overlay, cmd/gc effectiveOverlayDirs; gascity a46ccb1): the
 * city packs' `overlay/`, then the agent's rig's packs' `overlay/`, then the agent's `overlay_dir`, into
 * the agent's working directory; a provider settings file already there merged as JSON (hooks united by
 * identity), not overwritten.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { effectiveConfigOf } from '../../actors/config/effectiveConfig.ts';
import { agentStart, findAgent } from '../../actors/sessions/agentStart.ts';
import { copyOverlays } from '../../actors/sessions/startSetup.ts';
import { mergeSettingsJson } from '../../machines/sessions/settingsMerge.ts';

const settings = (hooks: Record<string, unknown[]>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ ...extra, hooks });

t.test('a rig agent gets the city packs’, its rig packs’ and its own overlay, in that order', async (t) => {
  const dir = t.testdir({
    'city.toml':
      '[workspace]\nname = "c"\nincludes = ["packs/base"]\n\n' +
      '[[rigs]]\nname = "app"\npath = "src/app"\nincludes = ["packs/crew"]\n',
    packs: {
      base: {
        'pack.toml': '[pack]\nname = "base"\nschema = 2\n',
        overlay: {
          'who.txt': 'city pack',
          'city.txt': 'city',
          '.claude': {
            'settings.json': settings(
              { Stop: [{ matcher: '', hooks: [{ command: 'gc hook stop' }] }] },
              { model: 'base' },
            ),
          },
        },
      },
      crew: {
        'pack.toml': '[pack]\nname = "crew"\nschema = 2\n',
        overlay: {
          'who.txt': 'rig pack',
          '.claude': {
            'settings.json': settings(
              { SessionStart: [{ matcher: 'startup', hooks: [{ command: 'gc prime' }] }] },
              { model: 'crew' },
            ),
          },
          'per-provider': { mock: { 'mock.txt': 'for mock' } },
        },
        agents: { worker: { 'agent.toml': 'scope = "rig"\n', overlay: { 'own.txt': 'agent' } } },
      },
    },
    src: { app: {} },
  });
  const config = await effectiveConfigOf(dir, readFileSync(join(dir, 'city.toml'), 'utf8'));
  t.same(config.city.rigPackDirs, { app: [join(dir, 'packs', 'crew')] });
  t.notMatch(
    config.problems.map((p) => p.field ?? '').join(' '),
    /overlay/,
    'no warning about overlays: they are applied',
  );
  const agent = findAgent(config.city, 'app/worker');
  if (!agent) throw new Error(`no app/worker in ${JSON.stringify(config.city.agents.map((a) => a.name))}`);
  const started = await agentStart(dir, config.city, agent, 'app/worker', {
    name: 'app/worker',
    provider: 'mock',
    kind: 'agent',
    command: 'true',
  });
  const work = started.workDir;
  t.equal(work, join(dir, 'src', 'app'));
  const read = (f: string) => readFileSync(join(work, f), 'utf8');
  t.equal(read('who.txt'), 'rig pack', 'the rig pack’s overlay comes after the city pack’s');
  t.equal(read('city.txt'), 'city');
  t.equal(read('mock.txt'), 'for mock', 'the rig pack’s per-provider files for the provider');
  t.equal(read('own.txt'), 'agent');
  t.same(JSON.parse(read('.claude/settings.json')), {
    hooks: {
      SessionStart: [{ matcher: 'startup', hooks: [{ command: 'gc prime' }] }],
      Stop: [{ matcher: '', hooks: [{ command: 'gc hook stop' }] }],
    },
    model: 'crew',
  });
});

t.test('settings merge: hook entries by identity, other keys the overlay’s, Go’s text', async (t) => {
  const base = JSON.stringify({
    z: 1,
    a: { keep: true },
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: ['old'] }, { command: 'x' }, { other: 1 }],
      Stop: [{ bash: 'b' }],
    },
  });
  const over = JSON.stringify({
    a: 'replaced',
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: ['new'] }, { command: 'y' }, { other: 2 }] },
  });
  const merged = mergeSettingsJson(base, over)!;
  t.same(JSON.parse(merged), {
    a: 'replaced',
    hooks: {
      PreToolUse: [
        { matcher: 'Bash', hooks: ['new'] },
        { command: 'x' },
        { other: 1 },
        { command: 'y' },
        { other: 2 },
      ],
      Stop: [{ bash: 'b' }],
    },
    z: 1,
  });
  t.ok(merged.startsWith('{\n  "a": "replaced",\n  "hooks": {\n'), 'keys sorted, two-space indent');
  t.ok(merged.endsWith('}\n'));
  t.equal(
    mergeSettingsJson('{}', '{"cmd":"a && b <c>"}'),
    '{\n  "cmd": "a \\u0026\\u0026 b \\u003cc\\u003e"\n}\n',
  );
  t.equal(mergeSettingsJson('not json', '{}'), undefined, 'then the overlay’s file is copied over');
  t.equal(mergeSettingsJson('[1]', '{}'), undefined);
});

t.test('copyOverlays merges a settings file already there, overwrites other files', async (t) => {
  const dir = t.testdir({
    one: { '.codex': { 'hooks.json': settings({ Stop: [{ command: 'a' }] }) }, 'plain.json': '{"a":1}' },
    two: { '.codex': { 'hooks.json': settings({ Stop: [{ command: 'b' }] }) }, 'plain.json': '{"b":2}' },
    work: {},
  });
  const work = join(dir, 'work');
  await copyOverlays([join(dir, 'one'), join(dir, 'two')], work, 'codex');
  t.same(JSON.parse(readFileSync(join(work, '.codex', 'hooks.json'), 'utf8')), {
    hooks: { Stop: [{ command: 'a' }, { command: 'b' }] },
  });
  t.equal(readFileSync(join(work, 'plain.json'), 'utf8'), '{"b":2}', 'not a settings file: overwritten');
});

t.test('gascity-packs flywheel/all: its four packs’ overlays land merged in one settings.json', async (t) => {
  const packs = join(import.meta.dirname, '..', 'fixtures', 'upstream', 'gascity-packs');
  const dir = t.testdir({ work: {} });
  const config = await effectiveConfigOf(
    dir,
    `[workspace]\nname = "c"\n\n[imports.flywheel]\nsource = "${join(packs, 'flywheel', 'all')}"\n`,
  );
  const overlays = (config.city.packDirs ?? []).map((d) => join(d, 'overlay'));
  const work = join(dir, 'work');
  await copyOverlays(overlays, work, 'claude');
  const merged = JSON.parse(readFileSync(join(work, '.claude', 'settings.json'), 'utf8'));
  t.match(merged.hooks, {
    UserPromptSubmit: [{ command: /^am inbox/ }],
    PreToolUse: [{ command: /ubs --staged/ }],
  });
  // Imports compose in binding order (cass, cm, mcp-agent-mail, ubs): the last with `mcpServers` wins it.
  t.same(Object.keys(merged.mcpServers), ['agent-mail'], 'a top-level key other than hooks: the last pack’s');
  for (const skill of ['coordinate', 'search-sessions', 'recall', 'reflect', 'scan-bugs'])
    t.ok(readFileSync(join(work, '.claude', 'skills', skill, 'SKILL.md'), 'utf8'), `skill ${skill} copied`);
});

t.test(
  'install_agent_hooks: the per-provider files of each slot, the agent’s over the workspace’s',
  async (t) => {
    const dir = t.testdir({
      'city.toml':
        '[workspace]\nname = "c"\ninstall_agent_hooks = ["gemini"]\nincludes = ["packs/base"]\n\n' +
        '[[agent]]\nname = "coder"\nprovider = "mock"\ninstall_agent_hooks = ["codex", "cursor"]\n\n' +
        '[[agent]]\nname = "plain"\nprovider = "mock"\n\n' +
        '[[agent]]\nname = "odd"\nprovider = "mock"\ninstall_agent_hooks = ["amp", "nope", "codex"]\n',
      packs: {
        base: {
          'pack.toml': '[pack]\nname = "base"\nschema = 2\n',
          overlay: {
            'per-provider': {
              codex: { '.codex': { 'hooks.json': '{"hooks":{}}' } },
              cursor: { '.cursor': { 'hooks.json': '{"hooks":{}}' } },
              gemini: { '.gemini': { 'settings.json': '{"hooks":{}}' } },
            },
          },
        },
      },
    });
    const config = await effectiveConfigOf(dir, readFileSync(join(dir, 'city.toml'), 'utf8'));
    t.notMatch(config.problems.map((p) => p.message).join(' '), /install_agent_hooks/, 'applied: no warning');
    const start = (name: string) =>
      agentStart(dir, config.city, findAgent(config.city, name)!, name, {
        name,
        provider: 'mock',
        kind: 'agent',
        command: 'true',
      });
    const coder = await start('coder');
    t.ok(existsSync(join(coder.workDir, '.codex', 'hooks.json')), 'codex slot');
    t.ok(existsSync(join(coder.workDir, '.cursor', 'hooks.json')), 'cursor slot');
    t.notOk(existsSync(join(coder.workDir, '.gemini')), 'the agent’s list replaces the workspace’s');
    rmSync(join(dir, '.codex'), { recursive: true, force: true });
    rmSync(join(dir, '.cursor'), { recursive: true, force: true });
    const plain = await start('plain');
    t.ok(existsSync(join(plain.workDir, '.gemini', 'settings.json')), 'the workspace’s slots otherwise');
    await t.rejects(start('odd'), {
      name: 'ValidationError',
      message:
        'unsupported install_agent_hooks: amp (no hook mechanism), nope (unknown); supported: claude, codex, gemini, opencode, copilot, cursor, pi, omp',
    });
  },
);

t.test(
  '[session] setup_timeout reaches the post-start commands; a city without one keeps the default',
  async (t) => {
    const dir = t.testdir({
      'city.toml':
        '[workspace]\nname = "c"\n\n[session]\nsetup_timeout = "3s"\n\n' +
        '[[agent]]\nname = "themed"\nprovider = "mock"\nsession_live = ["true"]\n\n' +
        '[[agent]]\nname = "bare"\nprovider = "mock"\n',
    });
    const config = await effectiveConfigOf(dir, readFileSync(join(dir, 'city.toml'), 'utf8'));
    t.notMatch(config.problems.map((p) => p.field ?? '').join(' '), /setup_timeout/, 'applied: no warning');
    const start = (name: string) =>
      agentStart(dir, config.city, findAgent(config.city, name)!, name, {
        name,
        provider: 'mock',
        kind: 'agent',
        command: 'true',
      });
    t.equal((await start('themed')).metadata['gc.setup_timeout_ms'], '3000');
    t.equal(
      (await start('bare')).metadata['gc.setup_timeout_ms'],
      undefined,
      'no commands: nothing to limit',
    );
  },
);
