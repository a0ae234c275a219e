import { execFile } from 'node:child_process';
import { GcAgentError } from './errors.ts';

/** Upstream's limit on a custom work query (`gc hook` kills it after 30 s). */
export const WORK_QUERY_TIMEOUT_MS = 30_000;

/** Go's text for a command that failed: `exit status N`, `signal: killed`, or the spawn error. Pure. */
function failure(err: Error & { code?: unknown; signal?: unknown }): string {
  if (typeof err.code === 'number') return `exit status ${err.code}`;
  if (typeof err.signal === 'string' && err.signal !== '')
    return `signal: ${err.signal.slice(3).toLowerCase()}`;
  return err.message.split('\n')[0]!;
}

/**
 * Runs an agent's own `work_query` as upstream's `gc hook` does: `sh -c <query>` in the agent's directory
 * (the session's `GC_DIR`, else the current directory), with the session's environment and `GC_AGENT` /
 * `GC_SESSION_NAME` set to the resolved names (the session's own in a session, else the agent's), killed after 30 s. Resolves its stdout
 * (its stderr is dropped). Effects: spawns a shell.
 * @throws GcAgentError `running work query "<q>": <err>` when it exits non-zero or cannot start.
 */
export function runWorkQuery(
  query: string,
  opts: { env: NodeJS.ProcessEnv; agent: string; timeoutMs?: number },
): Promise<string> {
  const { env, agent } = opts;
  const cwd = env.GC_DIR || process.cwd();
  // In a session the caller's names are the resolved ones; outside one (`gc hook <agent>`), the agent's.
  const session = env.GC_SESSION_NAME || '';
  const childEnv = {
    ...env,
    GC_AGENT: session ? env.GC_AGENT || agent : agent,
    GC_SESSION_NAME: session || agent,
  };
  return new Promise((resolve, reject) => {
    execFile(
      'sh',
      ['-c', query],
      { cwd, env: childEnv, timeout: opts.timeoutMs ?? WORK_QUERY_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => {
        if (err) reject(new GcAgentError(`running work query ${JSON.stringify(query)}: ${failure(err)}`));
        else resolve(String(stdout));
      },
    );
  });
}
