import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import {
  GC_CLAUDE_HOOKS,
  installClaudeHooks,
  mergeClaudeSettings,
} from '../../actors/sessions/providerHooks.ts';

/** Claude hooks are installed into gc's own runtime file, merged with the user's, idempotently. */

const city = (t: Test): string => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-hooks-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

t.test('without user settings: exactly gc hooks, written once', async (t) => {
  const dir = city(t);
  const file = installClaudeHooks(dir);
  t.equal(file, join(dir, '.gc', 'settings.json'));
  const written = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, unknown> };
  t.same(written, { hooks: GC_CLAUDE_HOOKS });
  t.same(Object.keys(written.hooks).sort(), ['PreCompact', 'SessionStart', 'Stop', 'UserPromptSubmit']);
  const before = statSync(file).mtimeMs;
  writeFileSync(join(dir, 'marker'), '');
  installClaudeHooks(dir);
  t.equal(statSync(file).mtimeMs, before, 'a second install does not rewrite');
});

t.test("the user's settings are kept and never written; gc's groups are added once", async (t) => {
  const dir = city(t);
  mkdirSync(join(dir, '.claude'));
  const user = {
    model: 'opus',
    hooks: {
      Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'say done' }] }],
      SessionStart: [GC_CLAUDE_HOOKS.SessionStart![0]],
    },
  };
  const userText = JSON.stringify(user);
  writeFileSync(join(dir, '.claude', 'settings.json'), userText);
  const merged = JSON.parse(readFileSync(installClaudeHooks(dir), 'utf8')) as typeof user & {
    hooks: Record<string, { hooks: { command: string }[] }[]>;
  };
  t.equal(merged.model, 'opus');
  t.same(
    merged.hooks.Stop.map((g) => g.hooks[0]!.command),
    ['say done', 'gc hook --inject'],
  );
  t.equal(merged.hooks.SessionStart.length, 1, 'an identical group is not added twice');
  t.equal(readFileSync(join(dir, '.claude', 'settings.json'), 'utf8'), userText, 'user file untouched');
  t.same(
    mergeClaudeSettings(merged as unknown as Parameters<typeof mergeClaudeSettings>[0]),
    merged,
    'merging again changes nothing',
  );
});

t.test('a broken user file is refused and nothing is written', async (t) => {
  const dir = city(t);
  mkdirSync(join(dir, '.claude'));
  writeFileSync(join(dir, '.claude', 'settings.json'), '[1,2]');
  t.throws(() => installClaudeHooks(dir), /is not a JSON object/);
  t.notOk(existsSync(join(dir, '.gc', 'settings.json')));
});
