/**
 * Provider hooks, as upstream installs them for Claude: a gc-owned runtime settings file
 * `<city>/.gc/settings.json` that merges gc's hooks into the user's own `<city>/.claude/settings.json`
 * (which is only read, never written). Rewritten only when its content would change, so starting a city
 * again is idempotent; the user's keys and hooks are kept, gc's hook entries are added once.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type HookGroup = { matcher: string; hooks: { type: 'command'; command: string }[] };
type Settings = Record<string, unknown> & { hooks?: Record<string, HookGroup[]> };

const group = (...commands: string[]): HookGroup => ({
  matcher: '',
  hooks: commands.map((command) => ({ type: 'command', command })),
});

/** gc's hooks at Claude's lifecycle points (upstream's set, without its `export PATH=…` prefix). */
export const GC_CLAUDE_HOOKS: Record<string, HookGroup[]> = {
  SessionStart: [group('gc prime --hook')],
  PreCompact: [group('gc handoff "context cycle"')],
  UserPromptSubmit: [group('gc nudge drain --inject', 'gc mail check --inject')],
  Stop: [group('gc hook --inject')],
};

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The user's settings with gc's hook groups added where an identical group is not there yet. Pure. */
export function mergeClaudeSettings(user: Settings): Settings {
  const hooks: Record<string, HookGroup[]> = { ...(user.hooks ?? {}) };
  for (const [event, groups] of Object.entries(GC_CLAUDE_HOOKS)) {
    const mine = Array.isArray(hooks[event]) ? [...hooks[event]] : [];
    for (const g of groups) if (!mine.some((m) => same(m, g))) mine.push(g);
    hooks[event] = mine;
  }
  return { ...user, hooks };
}

/**
 * Writes `<city>/.gc/settings.json` (when it would change) and answers its path.
 * @throws Error when the user's `.claude/settings.json` exists but is not a JSON object: a broken file
 *   is the user's to fix, and guessing would drop their settings.
 */
export function installClaudeHooks(cityDir: string): string {
  const userFile = join(cityDir, '.claude', 'settings.json');
  let user: Settings = {};
  let text: string | undefined;
  try {
    text = readFileSync(userFile, 'utf8');
  } catch {
    // No user settings: gc's hooks alone.
  }
  if (text !== undefined) {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error(`${userFile} is not a JSON object`);
    }
    user = parsed as Settings;
  }
  const out = join(cityDir, '.gc', 'settings.json');
  const next = `${JSON.stringify(mergeClaudeSettings(user), null, 2)}\n`;
  let current: string | undefined;
  try {
    current = readFileSync(out, 'utf8');
  } catch {
    // First install.
  }
  if (current !== next) {
    mkdirSync(join(cityDir, '.gc'), { recursive: true });
    writeFileSync(out, next);
  }
  return out;
}
