import { execFile } from 'node:child_process';
import { access, constants, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * What readiness probes may ask of the host. A seam: tests pass a fake so probes are deterministic.
 */
export interface HostProbe {
  /** The user's home directory (where provider credentials live, and where relative city dirs resolve). */
  readonly home: string;
  /** The executable's absolute path on the probe PATH, or undefined. */
  which(binary: string): Promise<string | undefined>;
  /** A file's text, or undefined when it does not exist or cannot be read. */
  readText(path: string): Promise<string | undefined>;
  /** An environment variable. */
  env(name: string): string | undefined;
  /** Runs `file args` with a timeout; resolves its exit code (-1 when it could not run) and stdout. */
  run(file: string, args: readonly string[], timeoutMs: number): Promise<{ code: number; stdout: string }>;
}

/** The host as it is: `$PATH` plus the usual per-user bin dirs, real files, real processes. */
export function systemHostProbe(env: NodeJS.ProcessEnv = process.env): HostProbe {
  const home = env.HOME && env.HOME.trim() !== '' ? env.HOME : homedir();
  const dirs = [
    ...(env.PATH ?? '').split(delimiter).filter(Boolean),
    join(home, '.local', 'bin'),
    join(home, 'bin'),
    join(home, '.npm-global', 'bin'),
  ];
  return {
    home,
    async which(binary) {
      for (const dir of dirs) {
        const candidate = join(dir, binary);
        try {
          await access(candidate, constants.X_OK);
          return candidate;
        } catch {
          // not in this dir
        }
      }
      return undefined;
    },
    readText: (path) => readFile(path, 'utf8').catch(() => undefined),
    env: (name) => env[name],
    run: (file, args, timeoutMs) =>
      new Promise((resolve) => {
        execFile(file, [...args], { timeout: timeoutMs, env }, (err, stdout) => {
          const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
          resolve({ code, stdout: String(stdout) });
        });
      }),
  };
}
