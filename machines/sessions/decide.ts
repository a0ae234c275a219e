/**
 * The sessions family's lifecycle deciders: each takes the bead model (sessions are beads) and answers the
 * one `bead.*` event of the change plus its notices (`session.*`, `request.*`), written as one batch by the
 * bead store's runner, or a refusal. Legality comes from the transition table; nothing here does I/O, reads
 * a clock or draws a random number: time, tokens and ids come in as arguments. The create and the
 * request deciders are beside this file (decideCreate.ts, decideRequests.ts). Pure.
 */
import type { EventDraft } from '../../schemas/event.ts';
import { accept, reject, type Outcome } from '../beads/index.ts';
import type { EventContext, BeadModel, StoredBead } from '../beads/index.ts';
import {
  aliasTaken,
  displayName,
  failed,
  failRequests,
  illegal,
  iso,
  lifecycleEvent,
  onSession,
  patch,
  sessionEvent,
  type Meta,
} from './sessionChange.ts';
import { K, type SessionRecord, type SessionState } from './sessionRecord.ts';
import { nextState, type SessionCommand } from './transitions.ts';
import { restartBackoffMs, type SessionThresholds } from './thresholds.ts';

/** The session as the API shows it, for `request.result.session.create` (computed by the caller). */
export type SnapshotOf = (bead: StoredBead) => Record<string, unknown>;

/** No start wanted, none held back (a stop, a hold). */
const NO_WAKE: Meta = { [K.wake]: '', [K.notBefore]: '' };
/** Asleep with a start wanted now and the crash counters reset (a wake, the end of a quarantine). */
const WAKE_AFRESH: Meta = {
  [K.state]: 'asleep',
  [K.sleepReason]: '',
  [K.quarantinedUntil]: '',
  [K.wakeAttempts]: '0',
  [K.wake]: '1',
  [K.notBefore]: '',
};

/**
 * The pre-start commit: a new incarnation (generation + 1, a fresh instance token, `last_woke_at`), made
 * durable before the runtime starts so a restarted supervisor can tell the session it started (by the
 * token) and adopt it instead of starting a second one.
 */
export function decideBeginStart(
  model: Readonly<BeadModel>,
  id: string,
  token: string,
  nowMs: number,
  ctx: EventContext,
): Outcome<SessionRecord> {
  return onSession(model, id, (s) => {
    if (s.closed) return illegal(s, 'wake');
    const meta: Meta = {
      [K.generation]: String(s.generation + 1),
      [K.instanceToken]: token,
      [K.lastWokeAt]: iso(nowMs),
      [K.killed]: '',
    };
    return patch(model, s, meta, ctx);
  });
}

/** The runtime is up (started, or adopted after a restart): `active`, and the create request answered. */
export function decideStarted(
  model: Readonly<BeadModel>,
  id: string,
  nowMs: number,
  snapshotOf: SnapshotOf,
  ctx: EventContext,
  /** What the runtime reported at start to keep with the session (the ACP session id). */
  extra: Readonly<Record<string, string>> = {},
): Outcome<SessionRecord> {
  return onSession(model, id, (s) => {
    const command: SessionCommand = s.state === 'creating' ? 'ready' : 'wake';
    if (!nextState(s.state, command)) return illegal(s, command);
    const meta: Meta = {
      [K.state]: 'active',
      [K.stateReason]: 'creation_complete',
      [K.pendingCreateClaim]: '',
      [K.sleepReason]: '',
      [K.quarantinedUntil]: '',
      ...NO_WAKE,
      [K.createRequest]: '',
      [K.freshStart]: '',
      ...extra,
    };
    if (!s.meta[K.creationCompleteAt]) meta[K.creationCompleteAt] = iso(nowMs);
    return patch(model, s, meta, ctx, (after, bead) => {
      const notices = [sessionEvent('session.woke', after, ctx)];
      if (s.createRequest) {
        notices.push({
          type: 'request.result.session.create',
          actor: ctx.actor,
          subject: s.id,
          message: displayName(after),
          ts: ctx.now,
          payload: { request_id: s.createRequest, session: snapshotOf(bead) },
        });
      }
      return notices;
    });
  });
}

/**
 * A start failed. A session whose create is still pending is closed (`failed-create`) and its request
 * fails; any other counts a wake attempt and backs off, or is quarantined once attempts run out.
 */
export function decideStartFailed(
  model: Readonly<BeadModel>,
  id: string,
  error: string,
  nowMs: number,
  t: SessionThresholds,
  ctx: EventContext,
  /** A new conversation id, used when the failed start was a resume (stale key). */
  freshKey?: string,
): Outcome<SessionRecord> {
  return onSession(model, id, (s) => {
    if (s.closed) return accept(s);
    if (s.createRequest) {
      const meta: Meta = {
        [K.state]: 'closed',
        [K.closeReason]: 'failed-create',
        [K.closedAt]: iso(nowMs),
        [K.createRequest]: '',
        [K.pendingCreateClaim]: '',
      };
      const notices = () => [
        failed(s.createRequest!, 'session.create', 'create_failed', error, s, ctx),
        ...failRequests(s, 'session stopped before delivery', ctx),
      ];
      return patch(model, s, meta, ctx, notices, { status: 'closed' });
    }
    // A resume that died at start found no conversation (upstream's stale key): start fresh once, with a new
    // key, not counted as a crash.
    const resumed = s.meta[K.sessionKey] && s.meta[K.creationCompleteAt] && s.meta[K.freshStart] !== '1';
    if (resumed && freshKey) {
      const epoch = Number(s.meta[K.continuationEpoch] ?? '1');
      const meta: Meta = {
        [K.state]: 'asleep',
        [K.sleepReason]: 'stale-key',
        [K.sessionKey]: freshKey,
        [K.freshStart]: '1',
        [K.continuationEpoch]: String((Number.isInteger(epoch) ? epoch : 1) + 1),
        [K.wake]: '1',
        [K.notBefore]: '',
      };
      return patch(model, s, meta, ctx);
    }
    const crashed = lifecycleEvent('session.crashed', s, 'start_failed', ctx, error);
    return crashAccounting(model, s, nowMs, t, ctx, [crashed], 'start-failed');
  });
}

/** Counts a failed start or an early death; restarts after a back-off, or quarantines. */
function crashAccounting(
  model: Readonly<BeadModel>,
  s: SessionRecord,
  nowMs: number,
  t: SessionThresholds,
  ctx: EventContext,
  notices: EventDraft[],
  reason: string,
): Outcome<SessionRecord> {
  const attempts = s.wakeAttempts + 1;
  if (attempts >= t.maxWakeAttempts) {
    const meta: Meta = {
      [K.state]: 'quarantined',
      [K.sleepReason]: 'quarantine',
      [K.quarantinedUntil]: iso(nowMs + t.quarantineMs),
      [K.wakeAttempts]: String(attempts),
      ...NO_WAKE,
    };
    return patch(model, s, meta, ctx, (after) => [
      ...notices,
      sessionEvent('session.quarantined', after, ctx),
    ]);
  }
  const meta: Meta = {
    [K.state]: 'asleep',
    [K.sleepReason]: reason,
    [K.sleptAt]: iso(nowMs),
    [K.wakeAttempts]: String(attempts),
    [K.wake]: '1',
    [K.notBefore]: iso(nowMs + restartBackoffMs(t, attempts)),
  };
  return patch(model, s, meta, ctx, () => notices);
}

/**
 * The runtime of an `active` session is gone. Killed on purpose: restart at once, no crash counted. Died
 * within the stability window of its start: a crash (back-off, quarantine after too many). Later: a
 * crash that resets the count to one.
 */
export function decideDied(
  model: Readonly<BeadModel>,
  id: string,
  nowMs: number,
  t: SessionThresholds,
  ctx: EventContext,
  detail?: string,
): Outcome<SessionRecord> {
  return onSession(model, id, (s) => {
    if (s.state !== 'active') return accept(s);
    if (s.killed) {
      const meta: Meta = {
        [K.state]: 'asleep',
        [K.sleepReason]: 'killed',
        [K.sleptAt]: iso(nowMs),
        [K.wake]: '1',
        [K.notBefore]: '',
        [K.killed]: '',
      };
      return patch(model, s, meta, ctx);
    }
    const early = s.lastWokeAt !== undefined && nowMs - s.lastWokeAt < t.stabilityMs;
    const counted = early ? s : { ...s, wakeAttempts: 0 };
    const message = detail ? `${displayName(s)}: ${detail}` : undefined;
    const crashed = lifecycleEvent('session.crashed', s, 'crashed', ctx, message);
    return crashAccounting(model, counted, nowMs, t, ctx, [crashed], 'crashed');
  });
}

/** `/kill` was done: the state stays; the next tick restarts the session without counting a crash. */
export function decideKilled(
  model: Readonly<BeadModel>,
  id: string,
  ctx: EventContext,
): Outcome<SessionRecord> {
  return onSession(model, id, (s) => {
    if (s.closed) return illegal(s, 'close');
    return patch(model, s, { [K.killed]: '1' }, ctx, () => [
      lifecycleEvent('session.stopped', s, 'killed', ctx, 'killed'),
    ]);
  });
}

/** An `active` session idle past the idle timeout was stopped: asleep until a message or a wake. */
export function decideIdleKilled(
  model: Readonly<BeadModel>,
  id: string,
  nowMs: number,
  ctx: EventContext,
): Outcome<SessionRecord> {
  const meta: Meta = {
    [K.state]: 'asleep',
    [K.sleepReason]: 'idle-timeout',
    [K.sleptAt]: iso(nowMs),
    [K.wake]: '',
  };
  return onSession(
    model,
    id,
    (s) => patch(model, s, meta, ctx, (after) => [sessionEvent('session.idle_killed', after, ctx)]),
    'sleep',
  );
}

/** Graceful stop begins (suspend, close): `draining` while the agent is interrupted and given time. */
export function decideDrain(
  model: Readonly<BeadModel>,
  id: string,
  ctx: EventContext,
): Outcome<SessionRecord> {
  return onSession(
    model,
    id,
    (s) =>
      patch(model, s, { [K.state]: 'draining' }, ctx, (after) => [
        sessionEvent('session.draining', after, ctx),
      ]),
    'drain',
  );
}

/** Whether `/suspend` is legal now (checked before the runtime is touched). */
export function checkSuspend(model: Readonly<BeadModel>, id: string): Outcome<SessionRecord> {
  return onSession(model, id, (s) =>
    // A draining session is being suspended already (its drain was this suspend's).
    s.state !== 'draining' && !nextState(s.state, 'suspend') ? illegal(s, 'suspend') : accept(s),
  );
}

/** `/suspend` after the runtime stopped: `suspended` until an explicit wake. */
export function decideSuspended(
  model: Readonly<BeadModel>,
  id: string,
  nowMs: number,
  wasRunning: boolean,
  ctx: EventContext,
): Outcome<SessionRecord> {
  const checked = checkSuspend(model, id);
  if (!checked.ok) return checked;
  const s = checked.decision.result;
  const meta: Meta = {
    [K.state]: 'suspended',
    [K.suspendedAt]: iso(nowMs),
    ...NO_WAKE,
    [K.sleepReason]: 'user-hold',
  };
  return patch(model, s, meta, ctx, (after) => [
    ...(wasRunning ? [lifecycleEvent('session.stopped', s, 'suspended', ctx)] : []),
    sessionEvent('session.suspended', after, ctx),
    ...failRequests(s, 'session suspended before delivery', ctx),
  ]);
}

/** `/wake`: clear holds and counters; a start follows on the next tick. */
export function decideWake(
  model: Readonly<BeadModel>,
  id: string,
  ctx: EventContext,
): Outcome<SessionRecord> {
  return onSession(model, id, (s) => {
    if (s.state === 'active' || s.state === 'creating') return accept(s);
    if (!nextState(s.state, 'wake')) return illegal(s, 'wake');
    return patch(model, s, { ...WAKE_AFRESH }, ctx);
  });
}

/** A quarantine whose time is up: asleep with a start wanted, counters reset. */
export function decideQuarantineOver(
  model: Readonly<BeadModel>,
  id: string,
  ctx: EventContext,
): Outcome<SessionRecord> {
  return onSession(model, id, (s) =>
    s.state !== 'quarantined' ? accept(s) : patch(model, s, { ...WAKE_AFRESH }, ctx),
  );
}

/** `/close`: the bead is closed; a pending create and any request in flight fail. */
export function decideClose(
  model: Readonly<BeadModel>,
  id: string,
  nowMs: number,
  wasRunning: boolean,
  ctx: EventContext,
): Outcome<SessionRecord> {
  return onSession(
    model,
    id,
    (s) => {
      const notices: EventDraft[] = [];
      if (wasRunning) notices.push(lifecycleEvent('session.stopped', s, 'closed', ctx));
      if (s.createRequest)
        notices.push(
          failed(
            s.createRequest,
            'session.create',
            'create_failed',
            'session closed before it started',
            s,
            ctx,
          ),
        );
      notices.push(...failRequests(s, 'session closed before delivery', ctx));
      const meta: Meta = {
        [K.state]: 'closed',
        [K.closedAt]: iso(nowMs),
        [K.closeReason]: 'closed',
        [K.createRequest]: '',
        [K.requests]: '',
        [K.wake]: '',
      };
      return patch(model, s, meta, ctx, () => notices, { status: 'closed' });
    },
    'close',
  );
}

/** Title and alias (`PATCH`, `/rename`). An alias in use elsewhere is a conflict; "" clears it. */
export function decideRetitle(
  model: Readonly<BeadModel>,
  id: string,
  change: { title?: string; alias?: string },
  ctx: EventContext,
): Outcome<SessionRecord> {
  return onSession(model, id, (s) => {
    if (s.closed) return reject('conflict', `session ${s.id} is closed`);
    if (change.title !== undefined && change.title.trim() === '')
      return reject('invalid', 'title must not be empty');
    if (change.alias && aliasTaken(model, change.alias, s.id))
      return reject('conflict', `session alias ${change.alias} is in use`);
    const meta: Meta = {};
    if (change.alias !== undefined) meta[K.alias] = change.alias;
    return patch(
      model,
      s,
      meta,
      ctx,
      (after) => [sessionEvent('session.updated', after, ctx)],
      change.title !== undefined ? { title: change.title } : {},
    );
  });
}

/** `/permission-mode`: recorded on the session (applied by the agent CLI at its next start). */
export function decidePermissionMode(
  model: Readonly<BeadModel>,
  id: string,
  mode: string,
  ctx: EventContext,
): Outcome<SessionRecord> {
  return onSession(model, id, (s) => {
    if (s.closed) return reject('conflict', `session ${s.id} is closed`);
    return patch(model, s, { [K.permissionMode]: mode }, ctx, (after) => [
      sessionEvent('session.updated', after, ctx),
    ]);
  });
}

export type { SessionState };
