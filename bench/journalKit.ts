/**
 * Measuring helpers of `bench/journal.ts`: throughput loops with a bounded window, a paced publisher and
 * percentiles. Nothing here knows about NATS or journals.
 */
import { performance } from 'node:perf_hooks';

/** Runs `op(0..n-1)` with at most `window` calls in flight and returns operations per second. */
export async function throughput(
  n: number,
  window: number,
  op: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await op(next++);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(window, n) }, worker));
  return Math.round(n / ((performance.now() - started) / 1000));
}

/**
 * Runs `measure(round)` `rounds` times one after another and returns the median: two cores shared by
 * the broker and the client make single runs noisy.
 */
export async function median(rounds: number, measure: (round: number) => Promise<number>): Promise<number> {
  const values: number[] = [];
  for (let r = 0; r < rounds; r++) values.push(await measure(r));
  return quantile(
    values.sort((a, b) => a - b),
    0.5,
  );
}

/** Events read per second by `read`, which resolves after reading `n` of them. */
export async function readRate(n: number, read: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await read();
  return Math.round(n / ((performance.now() - started) / 1000));
}

/** Latency figures in milliseconds, and the send rate actually achieved. */
export interface LatencyFigures {
  events: number;
  rate_per_s: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/** The `q` quantile (0..1) of ascending `sorted` values, nearest rank. Pure. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000;

/**
 * Sends `n` events at `ratePerS` (each at its own scheduled instant; a late timer sends the overdue ones
 * at once rather than slowing the rate) and measures send→receive latency. `send(i)` starts event `i`;
 * the receiver calls `received(i)` when it sees it, and `subscribe` resolves with a function that
 * releases the receiver once every event was seen. The first `warmup` events are not counted.
 */
export async function pacedLatency(
  n: number,
  ratePerS: number,
  warmup: number,
  send: (i: number) => Promise<unknown>,
  subscribe: (received: (i: number) => void) => Promise<() => Promise<void>>,
): Promise<LatencyFigures> {
  const sentAt = new Float64Array(n);
  const latency = new Float64Array(n).fill(Number.NaN);
  let seen = 0;
  let allSeen: () => void = () => {};
  const done = new Promise<void>((resolve) => (allSeen = resolve));
  const release = await subscribe((i) => {
    latency[i] = performance.now() - sentAt[i]!;
    if (++seen === n) allSeen();
  });
  const interval = 1000 / ratePerS;
  const started = performance.now();
  const sends: Array<Promise<unknown>> = [];
  for (let i = 0; i < n;) {
    const now = performance.now();
    for (; i < n && started + i * interval <= now; i++) {
      sentAt[i] = performance.now();
      sends.push(send(i));
    }
    if (i < n)
      await new Promise((r) => setTimeout(r, Math.max(0, started + i * interval - performance.now())));
  }
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(sends);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    done,
    new Promise<void>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`latency run saw ${seen}/${n} events`)), 30_000);
    }),
  ]);
  clearTimeout(timer);
  await release();
  const counted = Array.from(latency.subarray(warmup)).sort((a, b) => a - b);
  return {
    events: counted.length,
    rate_per_s: Math.round(n / elapsed),
    p50_ms: round3(quantile(counted, 0.5)),
    p99_ms: round3(quantile(counted, 0.99)),
    max_ms: round3(counted[counted.length - 1] ?? Number.NaN),
  };
}
