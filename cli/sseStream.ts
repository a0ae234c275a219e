import { apiErrorFrom, type ApiClient } from './api.ts';
import { SseParser, type SseFrame } from './sse.ts';

/** The connection delivered nothing (not even a heartbeat) for longer than the idle limit. */
export class StreamStalledError extends Error {
  constructor(ms: number) {
    super(`no data for ${Math.round(ms / 1000)}s`);
    this.name = 'StreamStalledError';
  }
}

/** How to open one SSE connection. */
export interface SseRequest {
  path: string;
  query?: Record<string, string | number | undefined>;
  /** Aborting ends the iteration quietly (the caller decided to stop). */
  signal: AbortSignal;
  /** Abort the connection with `StreamStalledError` after this long without a byte. Default: never. */
  idleMs?: number;
  /** Extra request headers, e.g. `last-event-id` for a stream that resumes by header. */
  headers?: Record<string, string>;
}

/**
 * Opens an SSE stream. Resolves once the server has committed `200 text/event-stream` headers, so a setup
 * failure (the server's Problem Details answer) is thrown here as an `ApiError`, before any frame; an
 * unreachable server is a `TransportError`. The returned iterable yields frames until the server ends the
 * stream (clean EOF: the iteration just finishes) or the connection breaks (it throws).
 */
export async function openSse(client: ApiClient, req: SseRequest): Promise<AsyncIterable<SseFrame>> {
  // One controller per connection: the caller's signal stops everything, the idle timer only this socket.
  const conn = new AbortController();
  const onAbort = (): void => conn.abort(req.signal.reason);
  if (req.signal.aborted) onAbort();
  req.signal.addEventListener('abort', onAbort, { once: true });
  const res = await client
    .fetch(req.path, {
      query: req.query,
      headers: { ...req.headers, accept: 'text/event-stream' },
      signal: conn.signal,
    })
    .catch((err: unknown) => {
      req.signal.removeEventListener('abort', onAbort);
      throw err;
    });
  if (!res.ok) {
    req.signal.removeEventListener('abort', onAbort);
    throw await apiErrorFrom(res);
  }
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream') || !res.body) {
    req.signal.removeEventListener('abort', onAbort);
    await res.body?.cancel();
    throw new Error(`expected text/event-stream from ${req.path}, got "${type || 'no body'}"`);
  }
  return frames(res.body, conn, req, onAbort);
}

async function* frames(
  body: ReadableStream<Uint8Array>,
  conn: AbortController,
  req: SseRequest,
  onAbort: () => void,
): AsyncGenerator<SseFrame> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    if (req.idleMs === undefined) return;
    clearTimeout(timer);
    timer = setTimeout(() => conn.abort(new StreamStalledError(req.idleMs!)), req.idleMs);
  };
  const reader = body.getReader();
  try {
    arm();
    for (;;) {
      const { done, value } = await reader.read().catch((err: unknown) => {
        // Surface why this connection was aborted (stalled), not the generic AbortError.
        throw conn.signal.aborted && !req.signal.aborted ? (conn.signal.reason as Error) : err;
      });
      if (done) break;
      arm();
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    clearTimeout(timer);
    req.signal.removeEventListener('abort', onAbort);
    conn.abort();
    try {
      reader.releaseLock();
    } catch {
      // Already released by the abort above.
    }
  }
}
