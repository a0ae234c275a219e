/**
 * What every session decider shares: finding the session a command names, refusing an illegal move, and
 * writing a change as one metadata patch of the session bead with its notices (`session.*`, `request.*`).
 * Pure.
 */
import type { EventDraft } from '../../schemas/event.ts';
import { decideUpdate, accept, notFound, reject, type Outcome } from '../beads/index.ts';
import type { EventContext, BeadModel, StoredBead } from '../beads/index.ts';
import { isSessionBead, sessionOf, type SessionRecord } from './sessionRecord.ts';
import { nextState, type SessionCommand } from './transitions.ts';

export type Meta = Record<string, string>;

export const iso = (ms: number): string => new Date(ms).toISOString();

export const displayName = (s: SessionRecord): string => s.alias || s.sessionName;

/**
 * Decides on the session `id` names: an id that is no session is refused (not found); with `command`, a
 * move the transition table does not allow from the session's state is refused (conflict); else `decide`
 * answers for the session's record.
 */
export function onSession<R = SessionRecord>(
  model: Readonly<BeadModel>,
  id: string,
  decide: (s: SessionRecord) => Outcome<R>,
  command?: SessionCommand,
): Outcome<R> {
  const bead = model.beads.get(id)?.bead;
  if (!bead || !isSessionBead(bead)) return notFound('session', id);
  const s = sessionOf(bead);
  if (command && !nextState(s.state, command)) return illegal(s, command);
  return decide(s);
}

export function illegal(s: SessionRecord, command: SessionCommand): Outcome<never> {
  return reject('conflict', `session ${s.id} is ${s.state}: ${command} is not allowed`);
}

/** Is `alias` taken by another open session? */
export function aliasTaken(model: Readonly<BeadModel>, alias: string, except?: string): boolean {
  for (const { bead } of model.beads.values()) {
    if (bead.id === except || bead.status === 'closed' || !isSessionBead(bead)) continue;
    const s = sessionOf(bead);
    if (s.alias === alias || s.sessionName === alias) return true;
  }
  return false;
}

/** A metadata patch of session `s` with `notices`, answered with the updated record. */
export function patch(
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

export function sessionEvent<
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

export function lifecycleEvent(
  type: 'session.stopped' | 'session.crashed',
  s: SessionRecord,
  reason: string,
  ctx: EventContext,
  message?: string,
): EventDraft {
  const payload = { session_id: s.id, reason, ...(s.template ? { template: s.template } : {}) };
  return { type, actor: ctx.actor, subject: s.id, message: message ?? displayName(s), ts: ctx.now, payload };
}

export function failed(
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

/** The `request.failed` of every message and submit the session still holds. */
export function failRequests(s: SessionRecord, why: string, ctx: EventContext): EventDraft[] {
  return s.requests.map((r) =>
    failed(r.id, r.op === 'message' ? 'session.message' : 'session.submit', `${r.op}_failed`, why, s, ctx),
  );
}
