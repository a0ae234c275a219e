/**
 * Every threshold of the session lifecycle in one object (upstream's defaults where upstream has one), so a
 * test runs the same rules on a simulated clock with small numbers. Pure data.
 */
export interface SessionThresholds {
  /** Reconciler period (also poked by every mutation). */
  tickMs: number;
  /** A start that has not shown its ready prompt by then fails. */
  startupTimeoutMs: number;
  /** A death this soon after a start is a crash that counts toward quarantine. */
  stabilityMs: number;
  /** Crashes in a row (each within `stabilityMs` of its start) before quarantine. */
  maxWakeAttempts: number;
  /** How long a quarantine holds. */
  quarantineMs: number;
  /** Restart back-off after the n-th crash: base × 2^(n-1), capped. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Starts begun per tick (thundering-herd bound). */
  maxWakesPerTick: number;
  /** Stop a running session whose runtime shows no activity for this long (0 = never). */
  idleTimeoutMs: number;
  /** Graceful stop: after the interrupt, wait this long for the process to end before killing it. */
  drainTimeoutMs: number;
  /** The city stops: after interrupting every session, wait this long before stopping the rest (`[daemon]`). */
  shutdownTimeoutMs: number;
  /** A create whose session has not started by then fails (`request.failed`, `create_failed`). */
  createWaitMs: number;
  /** A message or submit not delivered by then fails (`timeout`). */
  messageTimeoutMs: number;
}

export const DEFAULT_SESSION_THRESHOLDS: Readonly<SessionThresholds> = {
  tickMs: 2_000,
  startupTimeoutMs: 60_000,
  stabilityMs: 30_000,
  maxWakeAttempts: 5,
  quarantineMs: 5 * 60_000,
  backoffBaseMs: 1_000,
  backoffMaxMs: 30_000,
  maxWakesPerTick: 5,
  idleTimeoutMs: 0,
  drainTimeoutMs: 5_000,
  shutdownTimeoutMs: 5_000,
  createWaitMs: 120_000,
  messageTimeoutMs: 95_000,
};

/** The back-off before restart after `attempts` crashes in a row. Pure. */
export function restartBackoffMs(t: SessionThresholds, attempts: number): number {
  return Math.min(t.backoffMaxMs, t.backoffBaseMs * 2 ** Math.max(0, attempts - 1));
}
