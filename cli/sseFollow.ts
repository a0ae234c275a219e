import { ApiError, type ApiClient } from './api.ts';
import { CliError, errorText } from './errors.ts';
import { BACKOFF, pause } from './events/stream.ts';
import type { SseFrame } from './sse.ts';
import { openSse } from './sseStream.ts';

/** A connection silent this long (the stream's heartbeats stopped) is dropped and resumed. */
export const FOLLOW_IDLE_MS = 60_000;

/** What `followResumable` needs. */
export interface ResumableFollow {
  client: ApiClient;
  /** The stream's path, and its query. */
  path: string;
  query?: Record<string, string | undefined>;
  /** The frames handed to `emit` (the others, heartbeats included, are consumed). */
  event: string;
  /** Stops following (a signal, or the caller giving up). */
  signal: AbortSignal;
  /** Takes one `event` frame (its data is one JSON object). */
  emit: (frame: SseFrame) => Promise<void>;
  /** Writes one diagnostic line (already prefixed by the caller). */
  warn: (message: string) => void;
  /**
   * Asked after the stream ended or broke: true when what it follows is over (a closed session, a removed
   * agent), so there is nothing to resume.
   */
  over: () => Promise<boolean>;
  idleMs?: number;
}

/** Problems worth retrying on a reconnect: the supervisor or the city restarting. */
const retryable = (err: ApiError): boolean => err.status >= 500 || err.status === 404 || err.status === 429;

/**
 * Follows an SSE stream whose `id:` is a resume position, handing each `event` frame to `emit`. After a
 * drop (a clean end, a broken or silent connection, a failed reconnect) the stream is opened again with
 * `Last-Event-ID` set to the last id received, so nothing is emitted twice or skipped; reconnects back off
 * as `gc events --follow` does. Resolves when `signal` fires or `over()` says the followed thing is gone.
 *
 * Effects: HTTP requests. @throws ApiError (a setup Problem of the first connection, or a later one that is
 *   not retried), CliError (a frame that is not a JSON object), TransportError (the first connection).
 */
export async function followResumable(f: ResumableFollow): Promise<void> {
  let lastId: string | undefined;
  let delay: number = BACKOFF.initialMs;
  let connected = false;
  while (!f.signal.aborted) {
    let delivered = false;
    let why: string;
    try {
      const frames = await openSse(f.client, {
        path: f.path,
        query: f.query ?? {},
        headers: lastId === undefined ? {} : { 'last-event-id': lastId },
        signal: f.signal,
        idleMs: f.idleMs ?? FOLLOW_IDLE_MS,
      });
      connected = true;
      for await (const frame of frames) {
        delivered = true;
        if (frame.event !== f.event) continue;
        checkJson(frame.data);
        await f.emit(frame);
        if (frame.id !== undefined && frame.id !== '') lastId = frame.id;
      }
      if (f.signal.aborted || (await f.over())) return;
      if (delivered) delay = BACKOFF.initialMs;
      why = `stream ended, reconnecting in ${delay / 1000}s`;
    } catch (err) {
      if (f.signal.aborted) return;
      if (err instanceof CliError) throw err;
      if (!connected || (err instanceof ApiError && !retryable(err))) throw err;
      if (delivered) delay = BACKOFF.initialMs;
      why = `${delivered ? 'stream broke, reconnecting' : 'connect failed, retrying'} in ${delay / 1000}s: ${errorText(err)}`;
    }
    f.warn(why);
    if (!(await pause(delay, f.signal))) return;
    delay = Math.min(delay * 2, BACKOFF.maxMs);
  }
}

/** A frame's data must be one JSON object: the CLI never prints a line it could not read. @throws CliError */
function checkJson(data: string): void {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    throw new CliError(`decode: undecodable frame: ${data.slice(0, 120)}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new CliError(`decode: expected a JSON object, got ${data.slice(0, 120)}`);
}

/** Stops `controller` on SIGINT or SIGTERM (a follow ends quietly, exit 0); returns the undo. */
export function stopOnSignals(controller: AbortController): () => void {
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
