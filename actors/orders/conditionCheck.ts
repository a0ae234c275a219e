/**
 * Runs a condition order's `check` command (upstream `checkCondition`): `sh -c <check>` with the order's
 * exec environment and directory, output discarded, killed (with its process group) when it outlasts
 * the timeout or when `signal` aborts it.
 */
import { spawn } from 'node:child_process';
import type { CheckResult } from '../../machines/orders/schedule.ts';

/** Upstream's `gateCheckTimeout`. */
export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

/** Go's text of the signals a check is likely to die of (`signal: killed`). */
const SIGNAL_TEXT: Record<string, string> = {
  SIGKILL: 'killed',
  SIGTERM: 'terminated',
  SIGINT: 'interrupt',
  SIGHUP: 'hangup',
  SIGQUIT: 'quit',
  SIGABRT: 'aborted',
  SIGSEGV: 'segmentation fault',
  SIGPIPE: 'broken pipe',
};

/** Options of {@link runCheck}. */
export interface CheckOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Runs `command` under `sh -c` and resolves how it ended; never rejects. Effects: spawns a process
 * (and kills it on timeout or abort).
 */
export function runCheck(command: string, opts: CheckOptions): Promise<CheckResult> {
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    const done = (r: CheckResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', kill);
      resolve(r);
    };
    const child = spawn('sh', ['-c', command], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: 'ignore',
      detached: true,
    });
    function kill(): void {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    if (opts.signal?.aborted) kill();
    else opts.signal?.addEventListener('abort', kill, { once: true });
    child.on('error', (err) => done({ kind: 'failed', error: err.message }));
    child.on('exit', (code, sig) => {
      if (timedOut) done({ kind: 'timedOut', ms: opts.timeoutMs });
      else if (code === 0) done({ kind: 'passed' });
      else if (code !== null) done({ kind: 'failed', error: `exit status ${code}` });
      else done({ kind: 'failed', error: `signal: ${SIGNAL_TEXT[sig ?? ''] ?? String(sig)}` });
    });
  });
}
