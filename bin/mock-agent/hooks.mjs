// The mock agent's provider hooks: Claude's settings format (`hooks.<Event>[].hooks[].command`), read from
// `--settings <file>`, else $GC_MOCK_SETTINGS, else ./.claude/settings.json. Each command runs with `sh -c`
// in the agent's working directory; what the commands print is the context the hook injects.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The hook commands by event (empty when no settings file is found or it has no hooks). */
export function loadHooks(cwd, env, flag) {
  // $GC_MOCK_SETTINGS may name the file through the session's variables: `${GC_CITY_RUNTIME_DIR}/settings.json`.
  const fromEnv = env.GC_MOCK_SETTINGS?.replace(/\$\{(\w+)\}/g, (_, k) => env[k] ?? '');
  const file = flag || fromEnv || join(cwd, '.claude', 'settings.json');
  if (!existsSync(file)) return { file: undefined, events: {} };
  let settings;
  try {
    settings = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { file, events: {} };
  }
  const events = {};
  for (const [event, groups] of Object.entries(settings?.hooks ?? {})) {
    if (!Array.isArray(groups)) continue;
    events[event] = groups.flatMap((g) =>
      Array.isArray(g?.hooks)
        ? g.hooks.filter((h) => h?.type === 'command').map((h) => String(h.command))
        : [],
    );
  }
  return { file, events };
}

/** Runs one command with `sh -c`; resolves with its exit code and output (never rejects). */
export function sh(command, cwd, env, timeoutMs = 30_000) {
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', command],
      { cwd, env, timeout: timeoutMs, maxBuffer: 16 << 20 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs an event's hooks in order; resolves with the concatenated stdout of those that exited 0. */
export async function runHooks(hooks, event, cwd, env) {
  let out = '';
  for (const command of hooks.events[event] ?? []) {
    const r = await sh(command, cwd, env);
    if (r.code === 0) out += r.stdout;
  }
  return out;
}

/** The JSON array inside a `<work-items>` block of injected context, or undefined. */
export function workItems(text) {
  const m = /<work-items>\n([\s\S]*?)\n<\/work-items>/.exec(text);
  if (!m) return undefined;
  try {
    const v = JSON.parse(m[1]);
    return Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
