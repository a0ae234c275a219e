/**
 * The two start steps upstream runs before a session exists (tmux adapter, steps 1 and 2): the overlays
 * copied into the working directory (each city pack's `overlay/`, the agent's rig's packs' `overlay/`, then
 * the agent's `overlay_dir`; provider settings files merged as JSON), then
 * the agent's `pre_start` commands in order, each `sh -c` in the working directory, any failure aborting
 * the start. gastown's polecats make their git worktree this way (`worktree-setup.sh` in `pre_start`).
 * Effects: copies files; runs shell commands.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isMergeableSettings, mergeSettingsJson } from '../../machines/sessions/settingsMerge.ts';
import { ValidationError } from '../runtime/errors.ts';

const PER_PROVIDER = 'per-provider';

const isDir = (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

/**
 * Copies each overlay directory into `workDir`, in order, later files overwriting earlier ones: all but
 * `per-provider/`, then `per-provider/<p>/` flattened into the root for each of `providers` in order
 * (upstream's layout for hook files: the agent's provider, then its `install_agent_hooks`). A provider
 * settings file (upstream's list: `.claude/settings.json`, `.codex/hooks.json`, …) that is already there is merged as JSON, as upstream
 * (`mergeSettingsJson`), falling back to a copy when either is not a JSON object. A directory that does
 * not exist is skipped.
 */
export async function copyOverlays(
  dirs: readonly string[],
  workDir: string,
  providers?: string | readonly string[],
): Promise<void> {
  const slots = [...new Set(typeof providers === 'string' ? [providers] : (providers ?? []))].filter(Boolean);
  for (const dir of dirs) {
    if (!(await isDir(dir))) continue;
    await copyTree(dir, workDir, '', true);
    for (const p of slots) {
      const flat = join(dir, PER_PROVIDER, p);
      if (await isDir(flat)) await copyTree(flat, workDir, '', false);
    }
  }
}

/** Copies `src/rel` into `dst/rel` file by file (the top `per-provider/` left out when `skipSlots`). */
async function copyTree(src: string, dst: string, rel: string, skipSlots: boolean): Promise<void> {
  for (const entry of await readdir(join(src, rel), { withFileTypes: true })) {
    if (skipSlots && rel === '' && entry.name === PER_PROVIDER) continue;
    const sub = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      await mkdir(join(dst, sub), { recursive: true });
      await copyTree(src, dst, sub, false);
      continue;
    }
    const to = join(dst, sub);
    if (isMergeableSettings(sub)) {
      const merged = await mergedFile(join(src, sub), to);
      if (merged !== undefined) {
        await writeFile(to, merged);
        continue;
      }
    }
    await mkdir(dirname(to), { recursive: true });
    await cp(join(src, sub), to, { force: true });
  }
}

/** The merge of overlay file `from` onto `to`, when `to` exists and both are JSON objects. */
async function mergedFile(from: string, to: string): Promise<string | undefined> {
  const base = await readFile(to, 'utf8').catch(() => undefined);
  if (base === undefined) return undefined;
  return mergeSettingsJson(base, await readFile(from, 'utf8'));
}

/** How pre_start commands run. */
export interface PreStartOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Each command's limit (upstream `[session] setup_timeout`, 10 s by default). */
  timeoutMs: number;
}

/**
 * Runs `commands` in order with `sh -c`; the first that fails (non-zero exit, signal, timeout) stops the
 * start with upstream's message (`running pre_start: pre_start[i]: …`, its stderr's last line).
 * @throws ValidationError naming the command.
 */
export async function runPreStart(commands: readonly string[], opts: PreStartOptions): Promise<void> {
  for (const [i, command] of commands.entries()) {
    await new Promise<void>((resolve, reject) => {
      execFile(
        'sh',
        ['-c', command],
        { cwd: opts.cwd, env: opts.env, timeout: opts.timeoutMs, maxBuffer: 4 * 1024 * 1024 },
        (err, _stdout, stderr) => {
          if (!err) return resolve();
          const why = String(stderr).trim().split('\n').pop() || err.message;
          reject(new ValidationError(`running pre_start: pre_start[${i}]: ${why}`));
        },
      );
    });
  }
}

/**
 * Runs commands of a session that is up (`session_setup`, `session_setup_script`, `session_live`), each
 * `sh -c` in its working directory, in order, none fatal: upstream logs a failure and goes on. Resolves with
 * one line per failed command.
 */
export async function runSessionCommands(
  what: string,
  commands: readonly string[],
  opts: PreStartOptions,
): Promise<string[]> {
  const failures: string[] = [];
  for (const [i, command] of commands.entries()) {
    await new Promise<void>((resolve) => {
      execFile(
        'sh',
        ['-c', command],
        { cwd: opts.cwd, env: opts.env, timeout: opts.timeoutMs, maxBuffer: 4 * 1024 * 1024 },
        (err, _stdout, stderr) => {
          if (err) failures.push(`${what}[${i}]: ${String(stderr).trim().split('\n').pop() || err.message}`);
          resolve();
        },
      );
    });
  }
  return failures;
}
