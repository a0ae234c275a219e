import { assign, emit, setup } from 'xstate';
import { payloadAs } from '../schemas/eventDecode.ts';
import { withCauses, withoutCauses, type CausalHeads } from '../schemas/eventCauses.ts';
import { recordOf, type Recorded, type RecordEvent } from './recorded.ts';

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

/** `causes`: the heads of the city logs the terminal event follows from (schemas/eventCauses.ts). */
export type RequestEvent =
  | { type: 'ACCEPT' }
  | { type: 'SUCCEED'; causes?: CausalHeads }
  | { type: 'FAIL'; error_code: string; error_message: string; causes?: CausalHeads };

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
          actions: emit(({ context: c, event }) =>
            recordOf(
              {
                type: resultType(c.operation),
                actor,
                subject: c.name,
                payload: withCauses({ request_id: c.request_id, name: c.name, path: c.path }, event.causes),
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
                  payload: withCauses(
                    {
                      request_id: c.request_id,
                      operation: c.operation,
                      error_code: event.error_code,
                      error_message: event.error_message,
                    },
                    event.causes,
                  ),
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

const isResultType = (type: string): type is RequestResultType =>
  type === resultType('city.create') || type === resultType('city.unregister');

/**
 * What one record of supervisor log `log` says about a request: its id, its input (`request.accepted`
 * carries it) and the machine events that recorded it (replay); undefined for events of other kinds. Pure.
 * @throws DamagedRecordError when a request record's payload does not match its schema.
 */
export function requestRecordOf(
  event: Recorded,
  log: string,
): { request_id: string; input?: RequestInput; events: RequestEvent[] } | undefined {
  if (event.type === REQUEST_ACCEPTED) {
    const input = payloadAs(log, event, REQUEST_ACCEPTED);
    return { request_id: input.request_id, input, events: [{ type: 'ACCEPT' }] };
  }
  // Causes are stored with the terminal event but are no part of its payload's schema.
  if (isResultType(event.type)) {
    const { request_id } = payloadAs(log, { ...event, payload: withoutCauses(event.payload) }, event.type);
    return { request_id, events: [{ type: 'SUCCEED' }] };
  }
  if (event.type === REQUEST_FAILED) {
    const { request_id, error_code, error_message } = payloadAs(
      log,
      { ...event, payload: withoutCauses(event.payload) },
      REQUEST_FAILED,
    );
    return { request_id, events: [{ type: 'FAIL', error_code, error_message }] };
  }
  return undefined;
}
