import type { EventDraft } from '../../schemas/event.ts';

/**
 * Why a command was refused. A value, not an exception (machines do no I/O and know no HTTP); the
 * actor maps each kind to the error catalogue: not_found → 404, conflict → 409, invalid → 400,
 * idempotency_mismatch → 422.
 */
export interface Rejection {
  kind: 'not_found' | 'conflict' | 'invalid' | 'idempotency_mismatch';
  message: string;
}

/**
 * What a command decided. `event` is the one state change (a `bead.*` event); `notices` are the mail,
 * convoy and claim events that only inform. All of them are appended as one batch, fenced on the head
 * the decision was taken at, so a change never lands without its notices. No `event` means nothing
 * changes (a no-op or a replay).
 */
export interface Decision<R> {
  event?: EventDraft;
  /**
   * Further state events after `event`, for a decision that changes many beads at once (a cooked
   * molecule's whole graph, a workflow's teardown). Appended in order with `event` and the notices, as
   * one batch; the model folds every `bead.*` event it is handed.
   */
  more?: readonly EventDraft[];
  notices: EventDraft[];
  result: R;
}

export type Outcome<R> = { ok: true; decision: Decision<R> } | { ok: false; rejection: Rejection };

export const accept = <R>(result: R, event?: EventDraft, notices: EventDraft[] = []): Outcome<R> => ({
  ok: true,
  decision: event ? { event, notices, result } : { notices, result },
});

/**
 * A decision whose state change is several events (`events[0]` first). No events means nothing changes.
 * This is a pure function.
 */
export function acceptAll<R>(
  result: R,
  events: readonly EventDraft[],
  notices: EventDraft[] = [],
): Outcome<R> {
  const [first, ...more] = events;
  if (!first) return accept(result, undefined, notices);
  return { ok: true, decision: { event: first, more, notices, result } };
}

export const reject = (kind: Rejection['kind'], message: string): Outcome<never> => ({
  ok: false,
  rejection: { kind, message },
});

/** Not found, as every family words it. */
export const notFound = (what: string, id: string): Outcome<never> =>
  reject('not_found', `${what} ${id} not found`);
