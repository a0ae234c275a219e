/**
 * How a fenced append retries when it loses a race (`SeqConflictError`: another writer appended to the log
 * after the decision was taken). Each retry first folds the events it missed and decides again from the
 * new head, so waiting is not what resolves the conflict; the short, growing pause only keeps two busy
 * writers from colliding on every attempt. One policy for every log (style.md principle 4).
 */
export interface RetryPolicy {
  /** Attempts after the first; the last conflict is rethrown (409) once they are spent. */
  retries: number;
  /** Pause before the first retry. */
  minTimeoutMs: number;
  /** Each further pause is this many times the previous one… */
  factor: number;
  /** …up to this. */
  maxTimeoutMs: number;
}

/** The policy of every log runtime unless one is started with another (tests). */
export const RETRY_ON_SEQ_CONFLICT: RetryPolicy = {
  retries: 8,
  minTimeoutMs: 1,
  factor: 2,
  maxTimeoutMs: 100,
};

/** The pause before retry number `attempt` (0-based). This is a pure function. */
export const backoffMs = (policy: RetryPolicy, attempt: number): number =>
  Math.min(policy.maxTimeoutMs, policy.minTimeoutMs * policy.factor ** attempt);
