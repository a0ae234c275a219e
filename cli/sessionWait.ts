import * as Flags from '@oclif/core/flags';
import type { ApiClient } from './api.ts';
import { CliError } from './errors.ts';
import type { WireEvent } from './events/filter.ts';
import { follow, streamTarget } from './events/stream.ts';
import { compact } from './jsonl.ts';
import { failureMessage, type RequestOutcome } from './requestWait.ts';
import type { AsyncAcceptedBody } from '../schemas/sessions.ts';

/** The success types of the async session operations (spec 6.2); failure is always `request.failed`. */
export const SESSION_RESULTS = {
  create: 'request.result.session.create',
  message: 'request.result.session.message',
  submit: 'request.result.session.submit',
} as const;

/** The flags of the async session commands (create, send, submit). */
export const waitFlags = {
  wait: Flags.boolean({ description: 'wait for the request to finish and print its terminal event' }),
  timeout: Flags.string({ description: 'how long --wait waits', default: '10m' }),
};

/** How to finish an accepted async session operation. */
export interface SessionOpOptions {
  client: ApiClient;
  city: string;
  accepted: AsyncAcceptedBody;
  resultType: string;
  /** The session the operation concerns, when known (send, submit): its events are shown as progress. */
  session?: string;
  /** `--wait`: follow the city stream to the terminal event. Otherwise print the 202 body and return. */
  wait: boolean;
  timeoutMs: number;
  /** Show progress on stderr (stderr is a TTY). */
  progress: boolean;
  out: (line: string) => Promise<void>;
  note: (message: string) => void;
}

const payloadOf = (ev: WireEvent): Record<string, unknown> =>
  typeof ev.payload === 'object' && ev.payload !== null ? (ev.payload as Record<string, unknown>) : {};

/**
 * Prints the outcome of an accepted session operation. Without `--wait`: the 202 body as one JSON line.
 * With it: follows the city stream from the 202's `event_cursor` (the city log's seq before the work, so
 * nothing unrelated is replayed) until the event whose `payload.request_id` matches and whose type is
 * `resultType` or `request.failed`, and prints that event as one JSON line; a `request.failed` then ends in
 * a `CliError` with its `error_message`. On a terminal, progress lines go to stderr: the session events that
 * arrive meanwhile (those about `session` when it is known, else every `session.*` event).
 *
 * Effects: HTTP requests, stdout and stderr. @throws CliError on failure or time-out; ApiError, TransportError
 */
export async function finishSessionOp(o: SessionOpOptions): Promise<void> {
  if (!o.wait) return o.out(compact(o.accepted));
  if (!/^\d+$/.test(o.accepted.event_cursor)) {
    throw new CliError(`the 202 answer's event_cursor "${o.accepted.event_cursor}" is not a city seq`);
  }
  const signal = AbortSignal.timeout(o.timeoutMs);
  if (o.progress) o.note(`accepted ${o.accepted.request_id}; waiting for it to finish`);
  let outcome: RequestOutcome | undefined;
  await follow({
    client: o.client,
    target: streamTarget({ kind: 'city', city: o.city }, o.accepted.event_cursor),
    filter: { matcher: new Map() },
    signal,
    warn: o.note,
    emit: async (line, event) => {
      const terminal = event.type === o.resultType || event.type === 'request.failed';
      if (terminal && payloadOf(event).request_id === o.accepted.request_id) {
        outcome = { ok: event.type === o.resultType, line, event };
        return 'stop';
      }
      if (o.progress && concerns(event, o.session)) {
        const subject = typeof event.subject === 'string' && event.subject ? ` ${event.subject}` : '';
        o.note(`  event: ${String(event.type)}${subject}`);
      }
      return undefined;
    },
  });
  if (!outcome) {
    throw new CliError(
      `timed out waiting for ${o.accepted.request_id}; it may still finish: gc events --city ${o.city} --follow --after ${o.accepted.event_cursor}`,
    );
  }
  await o.out(outcome.line);
  if (!outcome.ok) throw new CliError(failureMessage(outcome.event));
}

/** Whether a stream event is progress worth showing for this operation. Pure. */
function concerns(event: WireEvent, session: string | undefined): boolean {
  if (session !== undefined) return event.subject === session;
  return typeof event.type === 'string' && event.type.startsWith('session.');
}
