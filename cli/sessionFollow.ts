import { setTimeout as sleep } from 'node:timers/promises';
import type { Static } from 'typebox';
import { ApiError, type ApiClient } from './api.ts';
import { CliError, errorText } from './errors.ts';
import { BACKOFF } from './events/stream.ts';
import { sessionPath } from './sessionClient.ts';
import type { SseFrame } from './sse.ts';
import { openSse } from './sseStream.ts';
import type { SessionResponse } from '../schemas/sessions.ts';
import type {
  OutputTurn,
  PaginationInfo,
  SessionStreamMessageEvent,
  SessionTranscriptGetResponse,
} from '../schemas/sessionTranscript.ts';

/** One displayed turn ({role, text, timestamp?}). */
export type TranscriptTurn = Static<typeof OutputTurn>;

/** A transcript page with its references resolved (the schema's `Type.Ref`s read as unknown). */
export type TranscriptPage = Omit<Static<typeof SessionTranscriptGetResponse>, 'turns' | 'pagination'> & {
  turns?: TranscriptTurn[] | null;
  pagination?: Static<typeof PaginationInfo>;
};

/** The data of a `turn` frame of the session stream, references resolved. */
export type TurnFrame = Omit<Static<typeof SessionStreamMessageEvent>, 'turns'> & {
  turns: TranscriptTurn[] | null;
};

/** A connection silent this long (the stream's heartbeats stopped) is dropped and resumed. */
export const SESSION_STREAM_IDLE_MS = 60_000;

/** What `followSession` needs. */
export interface SessionFollow {
  client: ApiClient;
  city: string;
  id: string;
  /** `raw`: `message` frames of the provider's own entries; otherwise `turn` frames. */
  raw: boolean;
  /** Stops following (a signal, or the caller giving up). */
  signal: AbortSignal;
  /** Takes one `turn` or `message` frame (its data is one line of JSON). */
  emit: (frame: SseFrame) => Promise<void>;
  /** Writes one diagnostic line (already prefixed by the caller). */
  warn: (message: string) => void;
  idleMs?: number;
}

/** Problems worth retrying on a reconnect: the supervisor or the city restarting. */
const retryable = (err: ApiError): boolean => err.status >= 500 || err.status === 404 || err.status === 429;

/** Waits `ms` unless `signal` fires first; resolves false when it did. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Whether the session is closed (its stream then ends for good: one snapshot, no resume). */
async function closed(f: SessionFollow): Promise<boolean> {
  try {
    const { body } = await f.client.getJson<SessionResponse>(sessionPath(f.city, f.id), {}, f.signal);
    return body.state === 'closed';
  } catch {
    return false;
  }
}

/**
 * Follows `GET /v0/city/{city}/session/{id}/stream`, handing each `turn` (or, raw, `message`) frame to
 * `emit`; activity, pending and heartbeat frames are consumed. A frame's `id:` is the newest message it
 * covers, so after a drop (a clean end of a live session's stream, a broken or silent connection, a failed
 * reconnect) the stream is opened again with `Last-Event-ID` set to the last one and nothing is emitted twice
 * or skipped; reconnects back off as `gc events --follow` does. Resolves when `signal` fires or the session's
 * stream ends because the session is closed.
 *
 * Effects: HTTP requests. @throws ApiError (a setup Problem of the first connection, or a later one that is
 *   not retried), CliError (a frame that is not JSON), TransportError (the first connection).
 */
export async function followSession(f: SessionFollow): Promise<void> {
  let lastId: string | undefined;
  let delay: number = BACKOFF.initialMs;
  let connected = false;
  while (!f.signal.aborted) {
    let delivered = false;
    let why: string;
    try {
      const frames = await openSse(f.client, {
        path: sessionPath(f.city, f.id, 'stream'),
        query: { format: f.raw ? 'raw' : undefined },
        headers: lastId === undefined ? {} : { 'last-event-id': lastId },
        signal: f.signal,
        idleMs: f.idleMs ?? SESSION_STREAM_IDLE_MS,
      });
      connected = true;
      for await (const frame of frames) {
        delivered = true;
        if (frame.event !== (f.raw ? 'message' : 'turn')) continue;
        checkJson(frame.data);
        await f.emit(frame);
        if (frame.id !== undefined && frame.id !== '') lastId = frame.id;
      }
      if (f.signal.aborted || (await closed(f))) return;
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
