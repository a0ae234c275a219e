/**
 * How outbound deliveries are retried: exponential backoff from `baseMs` by `factor`, capped at `capMs`,
 * at most `maxAttempts` attempts; an adapter's own RetryAfter is honoured when it asks for longer.
 * Only failures that may pass are retried (`transient`, `rate_limited`, and no adapter registered for the
 * conversation right now); `auth`, `not_found`, `permanent` and the like go to the dead letter at once.
 */
export interface DeliveryPolicy {
  maxAttempts: number;
  baseMs: number;
  factor: number;
  capMs: number;
  /** Bound of one publish call (upstream's HTTP adapter client: 30 s). */
  timeoutMs: number;
}

export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = {
  maxAttempts: 20,
  baseMs: 250,
  factor: 2,
  capMs: 5 * 60_000,
  timeoutMs: 30_000,
};

/** The failure kinds a later attempt may get past. */
export const RETRYABLE: ReadonlySet<string> = new Set(['transient', 'rate_limited', 'no_adapter']);

/**
 * When attempt `attempt + 1` is due after attempt `attempt` failed with `kind` at `now`, or undefined when
 * the delivery is given up (dead letter). `retryAfterNs` is the adapter's hint (nanoseconds, 0: none).
 * This is a pure function.
 */
export function nextAttemptAt(
  policy: DeliveryPolicy,
  kind: string,
  attempt: number,
  retryAfterNs: number,
  now: Date,
): string | undefined {
  if (!RETRYABLE.has(kind) || attempt >= policy.maxAttempts) return undefined;
  const backoff = Math.min(policy.capMs, policy.baseMs * policy.factor ** (attempt - 1));
  const hinted = Math.min(policy.capMs, Math.max(0, retryAfterNs) / 1e6);
  return new Date(now.getTime() + Math.max(backoff, hinted)).toISOString();
}
