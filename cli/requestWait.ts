import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, type ApiClient } from './api.ts';
import type { AsyncAcceptedResponse, CityInfo } from '../schemas/cities.ts';
import { listCities } from './cities.ts';
import { CliError } from './errors.ts';
import type { WireEvent } from './events/filter.ts';
import { supervisorEvents } from './events/list.ts';
import { follow, streamTarget } from './events/stream.ts';

/** How a waited-for request ended: its terminal event (the line as received, and decoded). */
export interface RequestOutcome {
  ok: boolean;
  line: string;
  event: WireEvent;
}

/** What `waitForRequest` follows and reports. */
export interface WaitOptions {
  /** The 202 body of the async operation (spec 2.1). */
  accepted: AsyncAcceptedResponse;
  /** The success type, e.g. `request.result.city.create`; failure is always `request.failed`. */
  resultType: string;
  signal: AbortSignal;
  /** Called with every other event on the stream while waiting (progress display). */
  onEvent?: (event: WireEvent) => void;
  /** Diagnostics (reconnects). */
  warn: (message: string) => void;
}

const payloadOf = (ev: WireEvent): Record<string, unknown> =>
  typeof ev.payload === 'object' && ev.payload !== null ? (ev.payload as Record<string, unknown>) : {};

/**
 * Follows the supervisor stream from the 202's `event_cursor` (spec 4.4: subscribing after the POST is safe)
 * until the request's terminal event: `resultType` or `request.failed` with a matching `payload.request_id`.
 * Reconnects like `gc events --follow`.
 *
 * Effects: HTTP requests. @throws CliError when `signal` fires first; ApiError, TransportError
 */
export async function waitForRequest(client: ApiClient, opts: WaitOptions): Promise<RequestOutcome> {
  let outcome: RequestOutcome | undefined;
  const isTerminal = (event: WireEvent): boolean =>
    (event.type === opts.resultType || event.type === 'request.failed') &&
    payloadOf(event).request_id === opts.accepted.request_id;
  try {
    await followUntil();
  } catch (err) {
    // After unregistering the last city the stream has no city to attach and answers 503 no_providers,
    // although the terminal event is on its way to the supervisor log (spec 4.4 rule 3 says it must not).
    // The list still serves that log, so read it until the event is there rather than fail the wait.
    if (!(err instanceof ApiError && err.code === 'no_providers')) throw err;
    outcome = await pollList(client, opts, isTerminal);
  }
  if (!outcome) throw new CliError(`gave up waiting for ${opts.accepted.request_id}`);
  return outcome;

  async function followUntil(): Promise<void> {
    await follow({
      client,
      target: streamTarget({ kind: 'supervisor' }, opts.accepted.event_cursor),
      filter: { matcher: new Map() },
      signal: opts.signal,
      warn: opts.warn,
      giveUpOn: (err) => err.code === 'no_providers',
      emit: async (line, event) => {
        if (isTerminal(event)) {
          outcome = { ok: event.type === opts.resultType, line, event };
          return 'stop';
        }
        opts.onEvent?.(event);
        return undefined;
      },
    });
  }
}

/** Reads the supervisor list after the 202's cursor every 250 ms until the terminal event is in it. */
async function pollList(
  client: ApiClient,
  opts: WaitOptions,
  isTerminal: (event: WireEvent) => boolean,
): Promise<RequestOutcome> {
  for (;;) {
    const events = await supervisorEvents(client, { afterCursor: opts.accepted.event_cursor });
    const event = events.find(isTerminal);
    if (event) return { ok: event.type === opts.resultType, line: JSON.stringify(event), event };
    await sleep(250, undefined, { signal: opts.signal });
  }
}

/** The failure text of a `request.failed` event: its `error_message`, with the `error_code` when present. Pure. */
export function failureMessage(ev: WireEvent): string {
  const p = payloadOf(ev);
  const message = typeof p.error_message === 'string' && p.error_message ? p.error_message : 'request failed';
  return typeof p.error_code === 'string' && p.error_code ? `${p.error_code}: ${message}` : message;
}

/**
 * Polls the city list for the phases a city has completed and reports each new one once (a TTY progress
 * display; completion itself is learnt from the stream, never from polling). The returned function stops
 * polling after one last look, so phases finished just before the terminal event are still shown.
 */
export function watchPhases(
  client: ApiClient,
  pick: (cities: CityInfo[]) => CityInfo | undefined,
  report: (phase: string) => void,
  everyMs = 250,
): () => Promise<void> {
  const shown = new Set<string>();
  let busy: Promise<void> = Promise.resolve();
  const tick = async (): Promise<void> => {
    try {
      const city = pick(await listCities(client));
      for (const phase of city?.phases_completed ?? []) {
        if (!shown.has(phase)) {
          shown.add(phase);
          report(phase);
        }
      }
    } catch {
      // Progress is best-effort: the stream decides the outcome.
    }
  };
  // One look at a time: overlapping polls could report a phase twice or out of order.
  const look = (): Promise<void> => (busy = busy.then(tick));
  void look();
  const timer = setInterval(() => void look(), everyMs);
  return async () => {
    clearInterval(timer);
    await look();
  };
}
