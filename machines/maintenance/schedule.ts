import { goDurationMs } from '../orders/index.ts';

/** Runs kept in the status history (upstream's ring of 16). */
export const HISTORY_SIZE = 16;
/** Upstream's default `[maintenance.dolt] interval`. */
export const DEFAULT_INTERVAL_MS = 168 * 3_600_000;

/** `[maintenance.dolt]` of city.toml, read. */
export interface MaintenanceConfig {
  enabled: boolean;
  intervalMs: number;
}

/**
 * Reads `[maintenance.dolt]` (`enabled`, default false; `interval`, a Go duration, default 168h) from a
 * parsed city.toml. Pure.
 * @throws Error naming the key for an interval that is not a positive Go duration.
 */
export function maintenanceConfigOf(doc: Record<string, unknown>): MaintenanceConfig {
  const maintenance = (doc.maintenance ?? {}) as Record<string, unknown>;
  const dolt = (maintenance.dolt ?? {}) as Record<string, unknown>;
  let intervalMs = DEFAULT_INTERVAL_MS;
  if (dolt.interval !== undefined) {
    const ms = typeof dolt.interval === 'string' ? goDurationMs(dolt.interval) : undefined;
    if (ms === undefined || ms <= 0)
      throw new Error(`city.toml: [maintenance.dolt] interval must be a positive Go duration (e.g. "168h")`);
    intervalMs = ms;
  }
  return { enabled: dolt.enabled === true, intervalMs };
}

/**
 * When the next scheduled run starts, as upstream schedules it: at once when there was none or the last is
 * older than 1.5 intervals, else one interval after the last, scaled by `jitter` (0.9…1.1). Pure.
 */
export function nextRunAt(
  lastRun: number | undefined,
  intervalMs: number,
  now: number,
  jitter: number,
): number {
  if (lastRun === undefined || now - lastRun > 1.5 * intervalMs) return now;
  return Math.max(now, lastRun + intervalMs * jitter);
}

/** `history` with `run` appended, keeping the newest {@link HISTORY_SIZE}. Pure. */
export const pushHistory = <T>(history: readonly T[], run: T): T[] => [...history, run].slice(-HISTORY_SIZE);
