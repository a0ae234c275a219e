import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { delimiter, join } from 'node:path';
import { CliError } from './errors.ts';

/**
 * The argv (after the program) that attaches a terminal to a session on a city's private tmux server:
 * `-L <socket> attach-session -t =<name>`. The `=` makes the target an exact name (a bare `-t name` also
 * matches another session whose name starts with it), as the supervisor's tmux runtime spells it. Pure.
 */
export function tmuxAttachArgs(socket: string, sessionName: string): string[] {
  return ['-L', socket, 'attach-session', '-t', `=${sessionName}`];
}

/**
 * The absolute path of an executable `name` on `PATH`, or undefined. Reads the file system only.
 */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const file = join(dir, name);
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not here, or not executable: keep looking, as a shell would.
    }
  }
  return undefined;
}

/** The tmux binary to attach with. @throws CliError when tmux is not on PATH */
export function tmuxBinary(env: NodeJS.ProcessEnv = process.env): string {
  const bin = findOnPath('tmux', env);
  if (bin === undefined) {
    throw new CliError(
      'tmux is not installed (not found on PATH); attaching to a session needs it (e.g. apt-get install tmux)',
    );
  }
  return bin;
}

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

/**
 * Runs `bin` with the terminal inherited, as `exec` would. Where Node has `process.execve` (22.15, 23.11 and
 * later) the process is replaced by it. Elsewhere `bin` runs as a child on the same terminal and this process
 * mirrors its end: the child's exit status, or the signal that killed it. While it runs, the keyboard's
 * SIGINT and SIGQUIT (sent to the whole foreground group) are left to the child, and a SIGTERM or SIGHUP sent
 * to this process is passed on to it.
 *
 * Effects: spawns a process; sets `process.exitCode` or re-raises the child's signal. @throws CliError when
 * `bin` cannot be started
 */
export async function execInherited(bin: string, args: string[]): Promise<void> {
  const execve = (process as unknown as { execve?: Execve }).execve;
  if (typeof execve === 'function') execve(bin, [bin, ...args], process.env);
  const child = spawn(bin, args, { stdio: 'inherit' });
  const ignore = (): void => {};
  const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
  process.on('SIGINT', ignore).on('SIGQUIT', ignore).on('SIGTERM', forward).on('SIGHUP', forward);
  try {
    const end = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        child.once('error', reject);
        child.once('exit', (code, signal) => resolve({ code, signal }));
      },
    );
    if (end.signal !== null) {
      // As a shell reports it, should the re-raised signal be caught by some other handler.
      process.exitCode = 128 + (osConstants.signals[end.signal] ?? 0);
      process.off('SIGINT', ignore).off('SIGQUIT', ignore).off('SIGTERM', forward).off('SIGHUP', forward);
      process.kill(process.pid, end.signal);
      return;
    }
    process.exitCode = end.code ?? 1;
  } catch (err) {
    throw new CliError(`cannot run ${bin}: ${(err as Error).message}`, { cause: err });
  } finally {
    process.off('SIGINT', ignore).off('SIGQUIT', ignore).off('SIGTERM', forward).off('SIGHUP', forward);
  }
}
