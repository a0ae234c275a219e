import { resolve } from 'node:path';
import type { ApiClient } from './api.ts';
import { CliError } from './errors.ts';
import { compact } from './jsonl.ts';
import type { AsyncAcceptedResponse, CityInfo } from '../schemas/cities.ts';
import { failureMessage, waitForRequest, watchPhases } from './requestWait.ts';

/** Which city an async operation concerns, for the progress display: what it is called in the city list. */
export type CityRef = Partial<Pick<CityInfo, 'name' | 'path'>>;

/** How to finish an accepted async city operation. */
export interface FinishOptions {
  client: ApiClient;
  accepted: AsyncAcceptedResponse;
  resultType: string;
  city: CityRef;
  /** `--wait`: follow the stream to the terminal event. Otherwise print the 202 body and return. */
  wait: boolean;
  timeoutMs: number;
  /** Show progress on stderr (stderr is a TTY). */
  progress: boolean;
  out: (line: string) => Promise<void>;
  note: (message: string) => void;
}

/**
 * Prints the outcome of an accepted city operation. Without `--wait`: the 202 body as one JSON line. With it:
 * the terminal event as one JSON line, after progress lines on stderr when it is a TTY (phases as the city
 * list reports them, and events about the city); a `request.failed` ends in a `CliError` carrying its
 * `error_message`.
 *
 * Effects: HTTP requests, stdout and stderr. @throws CliError on failure or time-out
 */
export async function finishCityOp(o: FinishOptions): Promise<void> {
  if (!o.wait) return o.out(compact(o.accepted));
  const signal = AbortSignal.timeout(o.timeoutMs);
  let name = o.city.name;
  const path = o.city.path === undefined ? undefined : resolve(o.city.path);
  if (o.progress) o.note(`accepted ${o.accepted.request_id}; waiting for it to finish`);
  const stopPhases = o.progress
    ? watchPhases(
        o.client,
        (cities) => {
          const city = cities.find(
            (c) => (path !== undefined && resolve(c.path) === path) || c.name === name,
          );
          name ??= city?.name;
          return city;
        },
        (phase) => o.note(`  done: ${phase}`),
      )
    : async () => {};
  let outcome;
  try {
    outcome = await waitForRequest(o.client, {
      accepted: o.accepted,
      resultType: o.resultType,
      signal,
      warn: o.note,
      onEvent: (ev) => {
        const about = ev.subject ?? ev.city;
        if (o.progress && name !== undefined && about === name) o.note(`  event: ${String(ev.type)}`);
      },
    });
  } catch (err) {
    await stopPhases();
    if (signal.aborted) {
      throw new CliError(
        `timed out waiting for ${o.accepted.request_id}; it may still finish: gc events --follow --after-cursor ${o.accepted.event_cursor}`,
      );
    }
    throw err;
  }
  await stopPhases();
  await o.out(outcome.line);
  if (!outcome.ok) throw new CliError(failureMessage(outcome.event));
}
