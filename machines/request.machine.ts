import { assign, emit, setup } from 'xstate';
import { payloadOf, payloadString, recordOf, type Recorded, type RecordEvent } from './recorded.ts';

/** The async supervisor operations (upstream's RequestFailedPayload.operation, city scope subset). */
export type RequestOperation = 'city.create' | 'city.unregister';

export interface RequestInput {
  request_id: string;
  operation: RequestOperation;
  /** City name: the subject of every event the request records. */
  name: string;
  path: string;
}

export interface RequestContext extends RequestInput {
  error_code?: string;
  error_message?: string;
}

export type RequestEvent =
  { type: 'ACCEPT' } | { type: 'SUCCEED' } | { type: 'FAIL'; error_code: string; error_message: string };

/** Supervisor-log event types of the request lifecycle. `request.accepted` is ours (docs/compatibility.md). */
export const REQUEST_ACCEPTED = 'request.accepted';
export const REQUEST_FAILED = 'request.failed';
export type RequestResultType = `request.result.${RequestOperation}`;
export const resultType = (op: RequestOperation): RequestResultType => `request.result.${op}`;

/** Dedupe key of a request's terminal event: at most one terminal per request_id, even across retries. */
export const terminalMsgId = (requestId: string): string => `terminal:${requestId}`;

const actor = 'api';

/**
 * An accepted async request: `new` → (ACCEPT, records `request.accepted`) → `accepted` → `succeeded`
 * (records `request.result.<operation>`) | `failed` (records `request.failed`). Terminal states are final,
 * so a second SUCCEED/FAIL is not a transition and records nothing: exactly one terminal per request.
 * Pure: the actor appends the records, then commits.
 */
export const requestMachine = setup({
  types: {
    input: {} as RequestInput,
    context: {} as RequestContext,
    events: {} as RequestEvent,
    emitted: {} as RecordEvent,
  },
}).createMachine({
  id: 'request',
  initial: 'new',
  context: ({ input }) => ({ ...input }),
  states: {
    new: {
      on: {
        ACCEPT: {
          target: 'accepted',
          actions: emit(({ context: c }) =>
            recordOf(
              {
                type: REQUEST_ACCEPTED,
                actor,
                subject: c.name,
                payload: { request_id: c.request_id, operation: c.operation, name: c.name, path: c.path },
              },
              `accepted:${c.request_id}`,
            ),
          ),
        },
      },
    },
    accepted: {
      on: {
        SUCCEED: {
          target: 'succeeded',
          actions: emit(({ context: c }) =>
            recordOf(
              {
                type: resultType(c.operation),
                actor,
                subject: c.name,
                payload: { request_id: c.request_id, name: c.name, path: c.path },
              },
              terminalMsgId(c.request_id),
            ),
          ),
        },
        FAIL: {
          target: 'failed',
          actions: [
            assign(({ event }) => ({ error_code: event.error_code, error_message: event.error_message })),
            emit(({ context: c, event }) =>
              recordOf(
                {
                  type: REQUEST_FAILED,
                  actor,
                  subject: c.name,
                  payload: {
                    request_id: c.request_id,
                    operation: c.operation,
                    error_code: event.error_code,
                    error_message: event.error_message,
                  },
                },
                terminalMsgId(c.request_id),
              ),
            ),
          ],
        },
      },
    },
    succeeded: { type: 'final' },
    failed: { type: 'final' },
  },
});

/** The request a supervisor-log event is about, or undefined for events of other kinds. Pure. */
export function requestIdOf(event: Recorded): string | undefined {
  if (event.type !== REQUEST_ACCEPTED && event.type !== REQUEST_FAILED && !isResultType(event.type)) {
    return undefined;
  }
  return payloadString(event, 'request_id') || undefined;
}

const isResultType = (type: string): boolean => type.startsWith('request.result.');

/** The input of a request recorded by `request.accepted`, or undefined when the payload is malformed. Pure. */
export function requestInputOf(event: Recorded): RequestInput | undefined {
  if (event.type !== REQUEST_ACCEPTED) return undefined;
  const p = payloadOf(event);
  const op = p.operation;
  if (op !== 'city.create' && op !== 'city.unregister') return undefined;
  const request_id = payloadString(event, 'request_id');
  if (!request_id) return undefined;
  return {
    request_id,
    operation: op,
    name: payloadString(event, 'name'),
    path: payloadString(event, 'path'),
  };
}

/**
 * Maps a recorded supervisor-log event back to the machine event that recorded it (replay). Pure.
 */
export function requestEventsFromRecord(event: Recorded): RequestEvent[] {
  if (event.type === REQUEST_ACCEPTED) return [{ type: 'ACCEPT' }];
  if (isResultType(event.type)) return [{ type: 'SUCCEED' }];
  if (event.type === REQUEST_FAILED) {
    return [
      {
        type: 'FAIL',
        error_code: payloadString(event, 'error_code'),
        error_message: payloadString(event, 'error_message'),
      },
    ];
  }
  return [];
}
