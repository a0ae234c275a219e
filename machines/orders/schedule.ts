import { MINUTE, nextCronMatch } from './cron.ts';
import type { Order } from './order.ts';

/** What the journal says about one order: its last fired slot and its event cursor. */
export interface OrderState {
  /** The newest slot fired or recorded as skipped (ms): cron minute, cooldown instant, or event seq. */
  lastSlot?: number;
  /** When it last fired (ms). */
  lastRun?: number;
  /** A run still open (an exec that has not finished): the order waits for it. */
  running?: boolean;
  /** When it was last enabled (ms): cron slots before it passed while it was disabled and are not owed. */
  since?: number;
}

/**
 * How a condition order's `check` command ended: exit 0 (`passed`), another exit status or a signal
 * (`failed`, with upstream's error text: `exit status 3`, `signal: killed`, or why it could not start), or
 * cut off after `ms` (`timedOut`).
 */
export type CheckResult =
  { kind: 'passed' } | { kind: 'failed'; error: string } | { kind: 'timedOut'; ms: number };

/** Upstream's reason for a condition check's result. This is a pure function. */
export function conditionReason(result: CheckResult): string {
  if (result.kind === 'passed') return 'condition: check passed (exit 0)';
  if (result.kind === 'failed') return `check command failed: ${result.error}`;
  return `check command timed out after ${goDuration(result.ms)}`;
}

/** `ms` as Go prints a time.Duration (`10s`, `200ms`, `1m30s`, `1.5s`). This is a pure function. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${String(s)}s`;
}

/** Slots missed while the scheduler was down and not fired (recorded, never silent). */
export interface Skipped {
  from: number;
  to: number;
  count: number;
}

/** One evaluation of an order at `now`. */
export interface Evaluation {
  due: boolean;
  reason: string;
  /** The slots to fire, oldest first (several only under catch_up = all). */
  fire: number[];
  skipped?: Skipped;
}

/** How far back a cron catch-up looks (older missed slots are counted as skipped from here). */
export const CATCH_UP_WINDOW_MS = 7 * 24 * 60 * MINUTE;
/** The most missed slots `catch_up = all` fires in one tick. */
export const MAX_CATCH_UP = 60;

/**
 * The earliest instant after `now` at which a cron order can next be due, given that it is not due at
 * `now` (undefined for other triggers, or none within a year). The scheduler skips the order until then
 * unless its state changes. This is a pure function.
 */
export function cronNotBefore(order: Order, now: number): number | undefined {
  if (order.trigger.kind !== 'cron') return undefined;
  const next = Math.floor(now / MINUTE) * MINUTE + MINUTE;
  return nextCronMatch(order.trigger.cron, next, next + 366 * 24 * 60 * MINUTE);
}

/**
 * Whether `order` is due at `now` and which slots fire, given what the journal recorded (`state`), for
 * event triggers the newest seq of the order's event type, and for condition triggers the result of the
 * check command run for this evaluation (none: not checked, so not due). Catch-up of cron slots missed while down:
 * `latest` fires the newest missed slot and records the older ones as skipped; `all` fires each (at most
 * {@link MAX_CATCH_UP} per tick, oldest first); `none` fires only the current minute and records every
 * missed one as skipped. An order never run starts at the current minute (no backlog). Each slot is
 * fired at most once: the caller records it with the firing, and `state.lastSlot` moves past it.
 * This is a pure function.
 */
export function evaluate(
  order: Order,
  state: OrderState,
  now: number,
  newestSeq = 0,
  check?: CheckResult,
): Evaluation {
  const t = order.trigger;
  if (state.running) return { due: false, reason: 'previous run still open', fire: [] };
  switch (t.kind) {
    case 'manual':
      return { due: false, reason: 'manual gate — use gc order run', fire: [] };
    case 'cooldown': {
      if (state.lastRun === undefined) return { due: true, reason: 'never run', fire: [now] };
      const elapsed = now - state.lastRun;
      if (elapsed >= t.intervalMs)
        return { due: true, reason: `elapsed ${fmt(elapsed)} >= interval ${t.interval}`, fire: [now] };
      return { due: false, reason: `cooldown: ${fmt(t.intervalMs - elapsed)} remaining`, fire: [] };
    }
    case 'event': {
      const cursor = state.lastSlot ?? 0;
      if (newestSeq > cursor)
        return { due: true, reason: `event: ${t.on} after seq ${cursor}`, fire: [newestSeq] };
      return { due: false, reason: 'event: no matching events', fire: [] };
    }
    case 'condition':
      if (!check) return { due: false, reason: 'condition: not checked', fire: [] };
      return {
        due: check.kind === 'passed',
        reason: conditionReason(check),
        fire: check.kind === 'passed' ? [now] : [],
      };
    case 'cron':
      return cronSlots(order, state, now);
  }
}

function cronSlots(order: Order, state: OrderState, now: number): Evaluation {
  const cron = order.trigger.kind === 'cron' ? order.trigger.cron : undefined;
  const current = Math.floor(now / MINUTE) * MINUTE;
  const last = state.lastSlot;
  if (last !== undefined && last >= current)
    return { due: false, reason: 'cron: already run this minute', fire: [] };
  let start = last === undefined ? current : Math.max(last + MINUTE, current - CATCH_UP_WINDOW_MS);
  if (state.since !== undefined) start = Math.min(current, Math.max(start, state.since));
  const missed: number[] = [];
  for (let m = nextCronMatch(cron!, start, current); m !== undefined;) {
    missed.push(m);
    m = nextCronMatch(cron!, m + MINUTE, current);
  }
  if (missed.length === 0) return { due: false, reason: 'cron: schedule not matched', fire: [] };
  const newest = missed[missed.length - 1]!;
  let fire: number[];
  if (order.catchUp === 'all') fire = missed.slice(-MAX_CATCH_UP);
  else if (order.catchUp === 'none') fire = newest === current ? [current] : [];
  else fire = [newest];
  const skippedList = missed.slice(0, missed.length - fire.length);
  const out: Evaluation = {
    due: fire.length > 0,
    reason:
      fire.length === 0
        ? 'cron: missed slots skipped (catch_up = none)'
        : newest === current
          ? 'cron: schedule matched'
          : 'cron: catching up a missed slot',
    fire,
  };
  if (skippedList.length > 0)
    out.skipped = {
      from: skippedList[0]!,
      to: skippedList[skippedList.length - 1]!,
      count: skippedList.length,
    };
  return out;
}

function fmt(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s % 60 || (!h && !m) ? `${s % 60}s` : ''}`;
}
