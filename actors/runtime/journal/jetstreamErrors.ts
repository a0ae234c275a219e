import { JetStreamApiCodes, JetStreamApiError, JetStreamError } from '@nats-io/jetstream';
import { ConnectionError, NoRespondersError, RequestError, TimeoutError } from '@nats-io/nats-core';
import { SeqConflictError, UnavailableError } from '../errors.ts';

/** The `UnavailableError` code of a journal whose broker cannot serve right now. */
export const JOURNAL_UNAVAILABLE = 'journal_unavailable';

/** HTTP-like statuses JetStream uses for "not now" (no responders, request timeout). */
const TRANSIENT_STATUS = new Set([408, 503]);

/**
 * True when `err` (or anything in its `cause` chain) means the broker could not answer in time: a
 * request timeout, no responders (JetStream not ready, e.g. during a restart), a lost connection, or a
 * JetStream 503. Pure.
 */
export function isBrokerUnavailable(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof TimeoutError || e instanceof NoRespondersError || e instanceof ConnectionError) {
      return true;
    }
    if (e instanceof RequestError && e.isNoResponders()) return true;
    if (e instanceof JetStreamApiError && TRANSIENT_STATUS.has(e.status)) return true;
    if (e instanceof JetStreamError && TRANSIENT_STATUS.has((e as { code?: unknown }).code as number)) {
      return true;
    }
  }
  return false;
}

/**
 * The actual last seq in a "wrong last sequence" error (the server writes `wrong last sequence: <n>`),
 * or undefined when the error is not one or carries no number. Pure.
 */
export function wrongLastSequence(err: unknown): number | undefined {
  if (!(err instanceof JetStreamApiError) || err.code !== JetStreamApiCodes.StreamWrongLastSequence) {
    return undefined;
  }
  const m = /(\d+)\s*$/.exec(err.apiError().description);
  return m ? Number(m[1]) : Number.NaN;
}

/**
 * Translates a NATS client failure into the journal's error catalogue: a wrong last sequence becomes
 * `SeqConflictError` (the actual seq from the server's answer, else from `head()`), an unreachable
 * broker becomes `UnavailableError` (`journal_unavailable`), anything else is returned as is.
 * Effects: calls `head` only when the server's answer lacks the actual seq.
 */
export async function toJournalError(
  err: unknown,
  log: string,
  expectedSeq: number | undefined,
  head: () => Promise<number>,
): Promise<unknown> {
  const actual = wrongLastSequence(err);
  if (actual !== undefined && expectedSeq !== undefined) {
    const known = Number.isNaN(actual) ? await head().catch(() => Number.NaN) : actual;
    return new SeqConflictError(log, expectedSeq, known);
  }
  if (isBrokerUnavailable(err)) {
    return new UnavailableError(`journal ${log}: the NATS broker is unavailable`, JOURNAL_UNAVAILABLE, {
      cause: err,
    });
  }
  return err;
}
