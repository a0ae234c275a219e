/**
 * The request deciders of the sessions family: a message or submit accepted onto a session, and its one
 * terminal event when it is answered. Pure.
 */
import { accept, reject, type Outcome } from '../beads/index.ts';
import type { EventContext, BeadModel } from '../beads/index.ts';
import { lookupKeyed, withKeyed } from './keyedRequests.ts';
import { failed, iso, onSession, patch, type Meta } from './sessionChange.ts';
import { K, type PendingRequest, type SessionRecord, type SessionState } from './sessionRecord.ts';

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
  return onSession(model, id, (s) => {
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
  });
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
  return onSession(model, id, (s) => {
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
  });
}
