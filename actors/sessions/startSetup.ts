/**
 * The two start steps upstream runs before a session exists (tmux adapter, steps 1 and 2): the overlays
 * copied into the working directory (each city pack's `overlay/`, then the agent's `overlay_dir`), then
 * the agent's `pre_start` commands in order, each `sh -c` in the working directory, any failure aborting
 * the start. gastown's polecats make their git worktree this way (`worktree-setup.sh` in `pre_start`).
 * Effects: copies files; runs shell commands.
 */
import { execFile } from 'node:child_process';
import { cp, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError } from '../runtime/errors.ts';

const PER_PROVIDER = 'per-provider';

const isDir = (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

/**
 * Copies each overlay directory into `workDir`, in order, later files overwriting earlier ones: all but
 * `per-provider/`, then `per-provider/<provider>/` flattened into the root (upstream's layout for hook
 * files). A directory that does not exist is skipped.
 */
export async function copyOverlays(
  dirs: readonly string[],
  workDir: string,
  provider?: string,
): Promise<void> {
  for (const dir of dirs) {
    if (!(await isDir(dir))) continue;
    for (const entry of await readdir(dir)) {
      if (entry === PER_PROVIDER) continue;
      await cp(join(dir, entry), join(workDir, entry), { recursive: true, force: true });
    }
    const flat = provider ? join(dir, PER_PROVIDER, provider) : undefined;
    if (flat && (await isDir(flat))) await cp(flat, workDir, { recursive: true, force: true });
  }
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
