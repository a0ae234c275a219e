/**
 * The reconciler's decision for one tick, as a pure function of what it knows: the open sessions, one
 * batched observation of the runtime, the sessions with an effect in flight, the time and the thresholds.
 * It answers what to do; the actor does it (start, adopt, account a death, stop an idle one, end a
 * quarantine, fail a create that waited too long). Pure.
 */
import { K, type SessionRecord } from './sessionRecord.ts';
import type { SessionThresholds } from './thresholds.ts';

/** What the reconciler saw of one runtime session (by runtime session name). */
export interface SeenRuntime {
  running: boolean;
  lastActivity: number;
  /** The instance token the runtime was started with; absent for a session we did not mint. */
  token?: string;
  exitCode?: number;
}

export type SessionAction =
  | { kind: 'start'; id: string }
  | { kind: 'adopt'; id: string }
  | { kind: 'died'; id: string; exitCode?: number }
  | { kind: 'idle'; id: string }
  | { kind: 'quarantine-over'; id: string }
  | { kind: 'create-timeout'; id: string };

export interface PlanInput {
  sessions: readonly SessionRecord[];
  seen: ReadonlyMap<string, SeenRuntime>;
  busy: ReadonlySet<string>;
  /** Sessions that must not start yet (their agent waits on a dependency: start waves). */
  held?: ReadonlySet<string>;
  /** Starts already running (from earlier passes): they count toward `maxWakesPerTick`. */
  starting?: number;
  now: number;
  thresholds: SessionThresholds;
}

/** True when the tick must look at the runtime at all (some session should run or is running). */
export const needsObservation = (sessions: readonly SessionRecord[]): boolean =>
  sessions.some((s) => !s.closed && s.state !== 'suspended' && s.state !== 'archived');

/**
 * True when a running session has been inactive past its idle timeout: its agent's `idle_timeout` when it
 * has one (upstream's per-agent key), else the city's. This is a pure function.
 */
export function idleOver(s: SessionRecord, t: SessionThresholds, lastActivity: number, now: number): boolean {
  const own = Number(s.meta[K.idleTimeoutMs]);
  const limit = Number.isInteger(own) && own > 0 ? own : t.idleTimeoutMs;
  return limit > 0 && lastActivity > 0 && now - lastActivity > limit;
}

export function planTick({
  sessions,
  seen,
  busy,
  held,
  starting,
  now,
  thresholds: t,
}: PlanInput): SessionAction[] {
  const actions: SessionAction[] = [];
  let starts = starting ?? 0;
  for (const s of sessions) {
    if (s.closed || busy.has(s.id)) continue;
    const rt = seen.get(s.sessionName);
    const ours = rt?.running === true && rt.token !== undefined && rt.token === s.instanceToken;
    switch (s.state) {
      case 'creating':
      case 'asleep': {
        // A runtime we started (same token) is live: a restart interrupted the start, or it won the race.
        if (ours && s.generation > 0) {
          actions.push({ kind: 'adopt', id: s.id });
          break;
        }
        const created = Date.parse(s.createdAt);
        if (s.state === 'creating' && s.createRequest && now - created > t.createWaitMs) {
          actions.push({ kind: 'create-timeout', id: s.id });
          break;
        }
        const wanted = s.state === 'creating' || s.wakeWanted;
        const due = s.notBefore === undefined || now >= s.notBefore;
        if (wanted && due && !held?.has(s.id) && starts < t.maxWakesPerTick) {
          starts++;
          actions.push({ kind: 'start', id: s.id });
        }
        break;
      }
      case 'active':
        if (!rt?.running) {
          actions.push(
            rt?.exitCode !== undefined
              ? { kind: 'died', id: s.id, exitCode: rt.exitCode }
              : { kind: 'died', id: s.id },
          );
        } else if (idleOver(s, t, rt.lastActivity, now)) {
          actions.push({ kind: 'idle', id: s.id });
        }
        break;
      case 'quarantined':
        if (s.quarantinedUntil !== undefined && now >= s.quarantinedUntil) {
          actions.push({ kind: 'quarantine-over', id: s.id });
        }
        break;
      default:
        break;
    }
  }
  return actions;
}
