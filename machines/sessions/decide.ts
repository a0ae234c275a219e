/**
 * The sessions family's deciders: each takes the bead model (sessions are beads) and answers the one
 * `bead.*` event of the change plus its notices (`session.*`, `request.*`), written as one batch by the bead
 * store's runner, or a refusal. Legality comes from the transition table; nothing here does I/O, reads a
 * clock or draws a random number: time, tokens and ids come in as arguments. Pure.
 */
import type { BeadCreateBody } from '../../schemas/beads.ts';
import type { EventDraft } from '../../schemas/event.ts';
import { decideCreate, decideUpdate } from '../beads/decideBead.ts';
import { accept, notFound, reject, type Outcome } from '../beads/decision.ts';
import type { EventContext } from '../beads/events.ts';
import { formatId } from '../beads/ids.ts';
import type { BeadModel, StoredBead } from '../beads/model.ts';
import {
  isSessionBead,
  K,
  SESSION_BEAD_TYPE,
  SESSION_LABEL,
  sessionNameFor,
  sessionOf,
  type PendingRequest,
  type SessionRecord,
  type SessionState,
} from './sessionRecord.ts';
import { lookupKeyed, withKeyed } from './keyedRequests.ts';
import { nextState, type SessionCommand } from './transitions.ts';
import { restartBackoffMs, type SessionThresholds } from './thresholds.ts';

type Meta = Record<string, string>;
/** The session as the API shows it, for `request.result.session.create` (computed by the caller). */
export type SnapshotOf = (bead: StoredBead) => Record<string, unknown>;

const iso = (ms: number): string => new Date(ms).toISOString();

/** The open session `id` names, or a refusal. */
function sessionIn(model: Readonly<BeadModel>, id: string): SessionRecord | Outcome<never> {
  const bead = model.beads.get(id)?.bead;
  if (!bead || !isSessionBead(bead)) return notFound('session', id);
  return sessionOf(bead);
}
const refused = (r: SessionRecord | Outcome<never>): r is Outcome<never> => 'ok' in r;

function illegal(s: SessionRecord, command: SessionCommand): Outcome<never> {
  return reject('conflict', `session ${s.id} is ${s.state}: ${command} is not allowed`);
}

function sessionEvent<
  K extends
    | 'session.woke'
    | 'session.draining'
    | 'session.quarantined'
    | 'session.idle_killed'
    | 'session.suspended'
    | 'session.updated',
>(type: K, s: SessionRecord, ctx: EventContext): EventDraft {
  return {
    type,
    actor: ctx.actor,
    subject: s.id,
    message: displayName(s),
    ts: ctx.now,
    payload: {},
  };
}

function lifecycleEvent(
  type: 'session.stopped' | 'session.crashed',
  s: SessionRecord,
  reason: string,
  ctx: EventContext,
  message?: string,
): EventDraft {
  const payload = { session_id: s.id, reason, ...(s.template ? { template: s.template } : {}) };
  return { type, actor: ctx.actor, subject: s.id, message: message ?? displayName(s), ts: ctx.now, payload };
}

function failed(
  requestId: string,
  operation: 'session.create' | 'session.message' | 'session.submit',
  code: string,
  message: string,
  s: SessionRecord,
  ctx: EventContext,
): EventDraft {
  return {
    type: 'request.failed',
    actor: ctx.actor,
    subject: s.id,
    message,
    ts: ctx.now,
    payload: { request_id: requestId, operation, error_code: code, error_message: message },
  };
}

export const displayName = (s: SessionRecord): string => s.alias || s.sessionName;

/** A metadata patch of session `s` with `notices`, answered with the updated record. */
function patch(
  model: Readonly<BeadModel>,
  s: SessionRecord,
  meta: Meta,
  ctx: EventContext,
  notices: (after: SessionRecord, bead: StoredBead) => EventDraft[] = () => [],
  extra: { title?: string; status?: 'closed' } = {},
): Outcome<SessionRecord> {
  const out = decideUpdate(model, { type: 'UpdateBead', id: s.id, patch: { ...extra, metadata: meta } }, ctx);
  if (!out.ok) return out;
  const bead = out.decision.result;
  const after = sessionOf(bead);
  return accept(after, out.decision.event, [...out.decision.notices, ...notices(after, bead)]);
}

export interface CreateSessionInput {
  template: string;
  provider: string;
  title: string;
  alias?: string;
  workDir: string;
  command: string;
  sessionKey?: string;
  /** The API create's request id; absent for a session the agent reconciler creates itself. */
  requestId?: string;
  /** `manual` (the API's), `ephemeral` (a pool instance), `named` (a configured named session). */
  origin?: 'manual' | 'ephemeral' | 'named';
  /** Extra metadata (mc_* keys, template_overrides, permission_mode). */
  metadata?: Meta;
  /** A keyed create (`Idempotency-Key`): recorded with the bead, so a retry finds it after a restart too. */
  idempotency?: { key: string; hash: string };
}

/** Is `alias` taken by another open session? */
function aliasTaken(model: Readonly<BeadModel>, alias: string, except?: string): boolean {
  for (const { bead } of model.beads.values()) {
    if (bead.id === except || bead.status === 'closed' || !isSessionBead(bead)) continue;
    const s = sessionOf(bead);
    if (s.alias === alias || s.sessionName === alias) return true;
  }
  return false;
}

/** A new session bead in `creating`, its create request pending on it. */
export function decideCreateSession(
  model: Readonly<BeadModel>,
  input: CreateSessionInput,
  ctx: EventContext,
): Outcome<SessionRecord> {
  // A retry of a keyed create answers the session it made (before the alias check, which it would fail).
  const first = input.idempotency && model.idempotency.get(input.idempotency.key);
  if (first) {
    return first.hash === input.idempotency!.hash
      ? accept(sessionOf(model.beads.get(first.bead.id)?.bead ?? first.bead))
      : reject('idempotency_mismatch', 'Idempotency-Key reused with different request body');
  }
  if (input.alias && aliasTaken(model, input.alias)) {
    return reject('conflict', `session alias ${input.alias} is in use`);
  }
  const id = formatId(model.prefix, model.nextNumber);
  const metadata: Meta = {
    ...input.metadata,
    [K.template]: input.template,
    [K.provider]: input.provider,
    [K.sessionName]: sessionNameFor(id),
    [K.origin]: input.origin ?? 'manual',
    [K.workDir]: input.workDir,
    [K.command]: input.command,
    [K.state]: 'creating',
    [K.pendingCreateClaim]: 'true',
    [K.generation]: '0',
    [K.continuationEpoch]: '1',
  };
  if (input.requestId) metadata[K.createRequest] = input.requestId;
  if (input.alias) metadata[K.alias] = input.alias;
  if (input.sessionKey) metadata[K.sessionKey] = input.sessionKey;
  const body: BeadCreateBody = {
    title: input.title,
    type: SESSION_BEAD_TYPE,
    labels: [SESSION_LABEL, `template:${input.template}`],
    metadata,
  };
  const out = decideCreate(
    model,
    { type: 'CreateBead', input: body, ...(input.idempotency ? { idempotency: input.idempotency } : {}) },
    ctx,
  );
  if (!out.ok) return out;
  return accept(sessionOf(out.decision.result.bead), out.decision.event, out.decision.notices);
}

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
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  if (s.closed) return illegal(s, 'wake');
  return patch(
    model,
    s,
    {
      [K.generation]: String(s.generation + 1),
      [K.instanceToken]: token,
      [K.lastWokeAt]: iso(nowMs),
      [K.killed]: '',
    },
    ctx,
  );
}

/** The runtime is up (started, or adopted after a restart): `active`, and the create request answered. */
export function decideStarted(
  model: Readonly<BeadModel>,
  id: string,
  nowMs: number,
  snapshotOf: SnapshotOf,
  ctx: EventContext,
): Outcome<SessionRecord> {
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  const command: SessionCommand = s.state === 'creating' ? 'ready' : 'wake';
  if (!nextState(s.state, command)) return illegal(s, command);
  const meta: Meta = {
    [K.state]: 'active',
    [K.stateReason]: 'creation_complete',
    [K.pendingCreateClaim]: '',
    [K.sleepReason]: '',
    [K.quarantinedUntil]: '',
    [K.wake]: '',
    [K.notBefore]: '',
    [K.createRequest]: '',
    [K.freshStart]: '',
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
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  if (s.closed) return accept(s);
  if (s.createRequest) {
    const meta: Meta = {
      [K.state]: 'closed',
      [K.closeReason]: 'failed-create',
      [K.closedAt]: iso(nowMs),
      [K.createRequest]: '',
      [K.pendingCreateClaim]: '',
    };
    return patch(
      model,
      s,
      meta,
      ctx,
      () => [
        failed(s.createRequest!, 'session.create', 'create_failed', error, s, ctx),
        ...failRequests(s, 'session stopped before delivery', ctx),
      ],
      { status: 'closed' },
    );
  }
  // A resume that died at start found no conversation (upstream's stale key): start fresh once, with a new
  // key, not counted as a crash.
  const resumed = s.meta[K.sessionKey] && s.meta[K.creationCompleteAt] && s.meta[K.freshStart] !== '1';
  if (resumed && freshKey) {
    const epoch = Number(s.meta[K.continuationEpoch] ?? '1');
    return patch(
      model,
      s,
      {
        [K.state]: 'asleep',
        [K.sleepReason]: 'stale-key',
        [K.sessionKey]: freshKey,
        [K.freshStart]: '1',
        [K.continuationEpoch]: String((Number.isInteger(epoch) ? epoch : 1) + 1),
        [K.wake]: '1',
        [K.notBefore]: '',
      },
      ctx,
    );
  }
  return crashAccounting(
    model,
    s,
    nowMs,
    t,
    ctx,
    [lifecycleEvent('session.crashed', s, 'start_failed', ctx, error)],
    'start-failed',
  );
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
      [K.wake]: '',
      [K.notBefore]: '',
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
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  if (s.state !== 'active') return accept(s);
  if (s.killed) {
    return patch(
      model,
      s,
      {
        [K.state]: 'asleep',
        [K.sleepReason]: 'killed',
        [K.sleptAt]: iso(nowMs),
        [K.wake]: '1',
        [K.notBefore]: '',
        [K.killed]: '',
      },
      ctx,
    );
  }
  const early = s.lastWokeAt !== undefined && nowMs - s.lastWokeAt < t.stabilityMs;
  const counted = early ? s : { ...s, wakeAttempts: 0 };
  const crashed = lifecycleEvent(
    'session.crashed',
    s,
    'crashed',
    ctx,
    detail ? `${displayName(s)}: ${detail}` : undefined,
  );
  return crashAccounting(model, counted, nowMs, t, ctx, [crashed], 'crashed');
}

/** `/kill` was done: the state stays; the next tick restarts the session without counting a crash. */
export function decideKilled(
  model: Readonly<BeadModel>,
  id: string,
  ctx: EventContext,
): Outcome<SessionRecord> {
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  if (s.closed) return illegal(s, 'close');
  return patch(model, s, { [K.killed]: '1' }, ctx, () => [
    lifecycleEvent('session.stopped', s, 'killed', ctx, 'killed'),
  ]);
}

/** An `active` session idle past the idle timeout was stopped: asleep until a message or a wake. */
export function decideIdleKilled(
  model: Readonly<BeadModel>,
  id: string,
  nowMs: number,
  ctx: EventContext,
): Outcome<SessionRecord> {
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  if (!nextState(s.state, 'sleep')) return illegal(s, 'sleep');
  return patch(
    model,
    s,
    { [K.state]: 'asleep', [K.sleepReason]: 'idle-timeout', [K.sleptAt]: iso(nowMs), [K.wake]: '' },
    ctx,
    (after) => [sessionEvent('session.idle_killed', after, ctx)],
  );
}

/** Graceful stop begins (suspend, close): `draining` while the agent is interrupted and given time. */
export function decideDrain(
  model: Readonly<BeadModel>,
  id: string,
  ctx: EventContext,
): Outcome<SessionRecord> {
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  if (!nextState(s.state, 'drain')) return illegal(s, 'drain');
  return patch(model, s, { [K.state]: 'draining' }, ctx, (after) => [
    sessionEvent('session.draining', after, ctx),
  ]);
}

/** Whether `/suspend` is legal now (checked before the runtime is touched). */
export function checkSuspend(model: Readonly<BeadModel>, id: string): Outcome<SessionRecord> {
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  // A draining session is being suspended already (its drain was this suspend's).
  if (s.state !== 'draining' && !nextState(s.state, 'suspend')) return illegal(s, 'suspend');
  return accept(s);
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
  return patch(
    model,
    s,
    {
      [K.state]: 'suspended',
      [K.suspendedAt]: iso(nowMs),
      [K.wake]: '',
      [K.notBefore]: '',
      [K.sleepReason]: 'user-hold',
    },
    ctx,
    (after) => [
      ...(wasRunning ? [lifecycleEvent('session.stopped', s, 'suspended', ctx)] : []),
      sessionEvent('session.suspended', after, ctx),
      ...failRequests(s, 'session suspended before delivery', ctx),
    ],
  );
}

/** `/wake`: clear holds and counters; a start follows on the next tick. */
export function decideWake(
  model: Readonly<BeadModel>,
  id: string,
  ctx: EventContext,
): Outcome<SessionRecord> {
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  if (s.state === 'active' || s.state === 'creating') return accept(s);
  if (!nextState(s.state, 'wake')) return illegal(s, 'wake');
  return patch(
    model,
    s,
    {
      [K.state]: 'asleep',
      [K.sleepReason]: '',
      [K.quarantinedUntil]: '',
      [K.wakeAttempts]: '0',
      [K.wake]: '1',
      [K.notBefore]: '',
    },
    ctx,
  );
}

/** A quarantine whose time is up: asleep with a start wanted, counters reset. */
export function decideQuarantineOver(
  model: Readonly<BeadModel>,
  id: string,
  ctx: EventContext,
): Outcome<SessionRecord> {
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  if (s.state !== 'quarantined') return accept(s);
  return patch(
    model,
    s,
    {
      [K.state]: 'asleep',
      [K.sleepReason]: '',
      [K.quarantinedUntil]: '',
      [K.wakeAttempts]: '0',
      [K.wake]: '1',
      [K.notBefore]: '',
    },
    ctx,
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
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  if (!nextState(s.state, 'close')) return illegal(s, 'close');
  const notices: EventDraft[] = [];
  if (wasRunning) notices.push(lifecycleEvent('session.stopped', s, 'closed', ctx));
  if (s.createRequest)
    notices.push(
      failed(s.createRequest, 'session.create', 'create_failed', 'session closed before it started', s, ctx),
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
}

function failRequests(s: SessionRecord, why: string, ctx: EventContext): EventDraft[] {
  return s.requests.map((r) =>
    failed(r.id, r.op === 'message' ? 'session.message' : 'session.submit', `${r.op}_failed`, why, s, ctx),
  );
}

/** Title and alias (`PATCH`, `/rename`). An alias in use elsewhere is a conflict; "" clears it. */
export function decideRetitle(
  model: Readonly<BeadModel>,
  id: string,
  change: { title?: string; alias?: string },
  ctx: EventContext,
): Outcome<SessionRecord> {
  const s = sessionIn(model, id);
  if (refused(s)) return s;
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
}

/** `/permission-mode`: recorded on the session (applied by the agent CLI at its next start). */
export function decidePermissionMode(
  model: Readonly<BeadModel>,
  id: string,
  mode: string,
  ctx: EventContext,
): Outcome<SessionRecord> {
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  if (s.closed) return reject('conflict', `session ${s.id} is closed`);
  return patch(model, s, { [K.permissionMode]: mode }, ctx, (after) => [
    sessionEvent('session.updated', after, ctx),
  ]);
}

/**
 * A message or submit accepted: recorded on the session so that, whatever crashes after the 202, its one
 * terminal event follows. An asleep session is asked to start (a message wakes it). A keyed one records its
 * key and 202 in the same change; a retry of a key already there changes nothing (the caller answers the
 * recorded 202) and the key with another body is refused.
 */
export function decideAcceptRequest(
  model: Readonly<BeadModel>,
  id: string,
  request: PendingRequest,
  ctx: EventContext,
  keyed?: { key: string; hash: string; cursor: string },
): Outcome<SessionRecord> {
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  const seen = keyed ? lookupKeyed(s.meta, keyed) : undefined;
  if (seen?.kind === 'retry') return accept(s);
  if (seen?.kind === 'mismatch')
    return reject('idempotency_mismatch', 'Idempotency-Key reused with different request body');
  if (!deliverable(s.state))
    return reject('conflict', `session ${s.id} is ${s.state}: it cannot take a message`);
  const meta: Meta = { [K.requests]: JSON.stringify([...s.requests, request]) };
  if (keyed) meta[K.keyedRequests] = withKeyed(s.meta, { ...keyed, requestId: request.id });
  if (s.state === 'asleep' && !s.wakeWanted) {
    meta[K.wake] = '1';
    meta[K.notBefore] = '';
  }
  return patch(model, s, meta, ctx);
}

/** States a message can be delivered from (after a start, for the asleep ones). */
export const deliverable = (state: SessionState): boolean =>
  state === 'active' || state === 'creating' || state === 'asleep';

/** A request's one terminal event, and the request off the session. */
export function decideFinishRequest(
  model: Readonly<BeadModel>,
  id: string,
  requestId: string,
  outcome: { ok: true; queued?: boolean } | { ok: false; code: string; message: string },
  nowMs: number,
  ctx: EventContext,
): Outcome<SessionRecord> {
  const s = sessionIn(model, id);
  if (refused(s)) return s;
  const request = s.requests.find((r) => r.id === requestId);
  if (!request) return accept(s); // answered already (closed, suspended): exactly one terminal
  const rest = s.requests.filter((r) => r.id !== requestId);
  const meta: Meta = { [K.requests]: rest.length ? JSON.stringify(rest) : '' };
  if (outcome.ok) meta[K.lastNudgeAt] = iso(nowMs);
  return patch(model, s, meta, ctx, () => {
    if (!outcome.ok) {
      return [
        failed(
          requestId,
          request.op === 'message' ? 'session.message' : 'session.submit',
          outcome.code,
          outcome.message,
          s,
          ctx,
        ),
      ];
    }
    const base = { request_id: requestId, session_id: s.id };
    return [
      request.op === 'message'
        ? {
            type: 'request.result.session.message',
            actor: ctx.actor,
            subject: s.id,
            ts: ctx.now,
            payload: base,
          }
        : {
            type: 'request.result.session.submit',
            actor: ctx.actor,
            subject: s.id,
            ts: ctx.now,
            payload: { ...base, intent: request.intent ?? 'default', queued: outcome.queued ?? false },
          },
    ];
  });
}

export type { SessionState };
