import { spawn } from 'node:child_process';

/**
 * The local Docker engine as the compose tier drives it: plain `docker` and `docker compose` (or Debian's
 * `docker-compose` 1.29) processes, exactly as a person would type them. Every call has a time bound.
 */

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cmd args` to completion (never rejects on a non-zero exit), feeding `input` on stdin if given. */
export function run(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string | Buffer; timeoutMs?: number; cwd?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ code: 127, stdout, stderr: stderr + String(err) });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout,
        stderr: signal ? `${stderr}\n(${signal})` : stderr,
      });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input);
  });
}

/** Runs and throws, with what the command printed, when it fails. */
export async function must(
  cmd: string,
  args: string[],
  opts: Parameters<typeof run>[2] = {},
): Promise<string> {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) {
    const tail = (r.stderr || r.stdout).trim().split('\n').slice(-30).join('\n');
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}:\n${tail}`);
  }
  return r.stdout;
}

export const docker = (args: string[], opts: Parameters<typeof run>[2] = {}) => must('docker', args, opts);

/** Why no engine can be used here, or undefined when `docker info` answers. */
export async function engineProblem(): Promise<string | undefined> {
  const r = await run('docker', ['info', '--format', '{{.ServerVersion}}'], { timeoutMs: 20_000 });
  if (r.code === 0) return undefined;
  return `no Docker engine answers (docker info: ${(r.stderr || r.stdout).trim().split('\n').pop()}); .ci/run installs Debian's docker.io and starts dockerd`;
}

/** The compose command: the `docker compose` plugin when present, else Debian's `docker-compose`. */
export async function composeCommand(): Promise<[string, string[]] | undefined> {
  if ((await run('docker', ['compose', 'version'], { timeoutMs: 20_000 })).code === 0)
    return ['docker', ['compose']];
  if ((await run('docker-compose', ['version'], { timeoutMs: 20_000 })).code === 0)
    return ['docker-compose', []];
  return undefined;
}
