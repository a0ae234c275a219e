/** How a crashed workspace service is started again. */
export interface RestartPolicy {
  /** Delay before the first restart after a failure. */
  initialMs: number;
  /** Each further consecutive failure multiplies the delay by this. */
  factor: number;
  /** The delay never exceeds this. */
  maxMs: number;
  /** A process that stayed ready this long has its failure count reset (the next crash waits `initialMs`). */
  stableMs: number;
  /** How long a started process may take to accept connections (and answer its health path). */
  readyTimeoutMs: number;
  /** Between two health checks of a ready process with a `health_path`. */
  healthEveryMs: number;
  /** How long a stopped process has after SIGTERM before SIGKILL. */
  stopGraceMs: number;
}

/**
 * Upstream restarts after a fixed 1 s; we start there and double up to 30 s so a service that dies at once
 * does not spin (docs/compatibility.md).
 */
export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialMs: 1000,
  factor: 2,
  maxMs: 30_000,
  stableMs: 60_000,
  readyTimeoutMs: 5000,
  healthEveryMs: 10_000,
  stopGraceMs: 2000,
};

/** The delay before restarting after the `failures`-th consecutive failure (1-based). Pure. */
export function restartDelayMs(failures: number, policy: RestartPolicy): number {
  const n = Math.max(1, failures);
  return Math.round(Math.min(policy.maxMs, policy.initialMs * policy.factor ** (n - 1)));
}
