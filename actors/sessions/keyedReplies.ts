/**
 * Keyed messages and submits (`Idempotency-Key`) answered once per session and op. An accepted one is kept
 * with its session, in the same change that accepts it (machines/sessions/keyedRequests.ts), so a retry,
 * after a restart or a failover too, reads its first 202 from the bead. Only requests still being accepted
 * are held here, so the process keeps nothing per key once they settle, and a concurrent retry waits for the
 * same answer instead of delivering a second time.
 */
import { requestHash } from '../beads/index.ts';
import { IdempotencyMismatchError } from '../runtime/errors.ts';
import { lookupKeyed, type KeyedAccept } from '../../machines/sessions/keyedRequests.ts';
import type { PendingRequest, SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import type { Accepted } from './sessionApi.ts';

export interface KeyedRequest {
  key: string;
  hash: string;
}

/** Longer keys are kept as their digest: the key rides on every later event of the session. */
const KEPT_KEY_CHARS = 64;

/** The key (scoped to the op: a message and a submit never answer each other) and the body's hash. */
export function keyedRequest(request: PendingRequest, idempotencyKey: string, text: string): KeyedRequest {
  const kept =
    idempotencyKey.length > KEPT_KEY_CHARS
      ? `sha256:${requestHash(idempotencyKey).slice(0, 32)}`
      : idempotencyKey;
  return {
    key: `${request.op}:${kept}`,
    hash: requestHash({ op: request.op, message: text, intent: request.intent }),
  };
}

const acceptedOf = (a: KeyedAccept): Accepted => ({
  status: 'accepted',
  request_id: a.requestId,
  event_cursor: a.cursor,
});

/**
 * The recorded first 202 when the accept decision found the key already there (another writer accepted it
 * first), so the caller answers that and delivers nothing; undefined when `requestId` is the one recorded.
 */
export function recordedFirst(after: SessionRecord, request: KeyedRequest, requestId: string) {
  const seen = lookupKeyed(after.meta, request);
  return seen.kind === 'retry' && seen.first.requestId !== requestId ? acceptedOf(seen.first) : undefined;
}

export class KeyedReplies {
  readonly #inFlight = new Map<string, { hash: string; reply: Promise<Accepted> }>();

  /**
   * The first 202 of `request` on session `s`, else what `accept` answers (once, however many retries
   * arrive meanwhile).
   * @throws IdempotencyMismatchError (422) when the key was used with another body.
   */
  async answer(s: SessionRecord, request: KeyedRequest, accept: () => Promise<Accepted>): Promise<Accepted> {
    const slot = `${s.id}\n${request.key}`;
    const pending = this.#inFlight.get(slot);
    if (pending) {
      if (pending.hash !== request.hash) throw new IdempotencyMismatchError();
      return pending.reply;
    }
    const seen = lookupKeyed(s.meta, request);
    if (seen.kind === 'mismatch') throw new IdempotencyMismatchError();
    if (seen.kind === 'retry') return acceptedOf(seen.first);
    const reply = accept().finally(() => this.#inFlight.delete(slot));
    this.#inFlight.set(slot, { hash: request.hash, reply });
    return reply;
  }
}
