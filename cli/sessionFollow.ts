import type { Static } from 'typebox';
import type { ApiClient } from './api.ts';
import { sessionPath } from './sessionClient.ts';
import type { SseFrame } from './sse.ts';
import { followResumable } from './sseFollow.ts';
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
 * covers, so a drop is resumed with `Last-Event-ID` (see {@link followResumable}). Resolves when `signal`
 * fires or the session's stream ends because the session is closed.
 *
 * Effects: HTTP requests. @throws as {@link followResumable}.
 */
export function followSession(f: SessionFollow): Promise<void> {
  return followResumable({
    client: f.client,
    path: sessionPath(f.city, f.id, 'stream'),
    query: { format: f.raw ? 'raw' : undefined },
    event: f.raw ? 'message' : 'turn',
    signal: f.signal,
    emit: f.emit,
    warn: f.warn,
    over: () => closed(f),
    ...(f.idleMs === undefined ? {} : { idleMs: f.idleMs }),
  });
}
