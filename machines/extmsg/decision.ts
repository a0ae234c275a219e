import type { EventDraft } from '../../schemas/event.ts';

/**
 * Why an extmsg command was refused: a value (machines know no HTTP). The actor maps each kind to the error
 * catalogue: not_found → 404, conflict → 409, invalid → 400, unprocessable → 422.
 */
export interface Rejection {
  kind: 'not_found' | 'conflict' | 'invalid' | 'unprocessable';
  message: string;
  /** The body field at fault (`body.conversation`), for the problem's `errors`. */
  field?: string;
}

/**
 * What a command decided: its records (state events first, then upstream's notices), appended as one
 * batch, and the answer. No records: nothing changes (a replay, a duplicate, a no-op).
 */
export interface Decision<R> {
  records: EventDraft[];
  result: R;
}

export type Outcome<R> = { ok: true; decision: Decision<R> } | { ok: false; rejection: Rejection };

export const accept = <R>(result: R, records: EventDraft[] = []): Outcome<R> => ({
  ok: true,
  decision: { records, result },
});

export const reject = (kind: Rejection['kind'], message: string, field?: string): Outcome<never> => ({
  ok: false,
  rejection: field === undefined ? { kind, message } : { kind, message, field },
});

/** Who and when, for every event a command writes. */
export interface EventContext {
  actor: string;
  /** RFC 3339 instant: the events' `ts` and the records' times. */
  now: string;
}
