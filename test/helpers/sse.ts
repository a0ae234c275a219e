import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/** One SSE frame as the server wrote it. */
export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
  /** The frame's exact text, terminator included. */
  raw: string;
}

/**
 * A test client of one SSE response over a real socket: it parses frames as they arrive and hands them
 * out in order. A non-200 answer is read whole into `body` instead.
 */
export interface SseClient {
  status: number;
  headers: IncomingHttpHeaders;
  /** The whole body of a non-200 answer (a Problem Details document). */
  body: string;
  /** The next frame (heartbeats included), or rejects after `timeoutMs` or when the stream ends first. */
  next(timeoutMs?: number): Promise<SseFrame>;
  /** The next frame that is not a heartbeat. */
  nextEvent(timeoutMs?: number): Promise<SseFrame>;
  /** Frames received and not yet taken. */
  readonly buffered: number;
  /** Resolves when the server ends the response (or the connection drops). */
  ended: Promise<void>;
  /** True once the response ended. */
  readonly isEnded: boolean;
  /** Aborts the connection from the client side. */
  close(): void;
  res: IncomingMessage;
}

function parseFrame(raw: string): SseFrame {
  const frame: SseFrame = { data: '', raw };
  const data: string[] = [];
  for (const line of raw.replace(/\n\n$/, '').split('\n')) {
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') frame.id = value;
    else if (field === 'event') frame.event = value;
    else if (field === 'data') data.push(value);
  }
  frame.data = data.join('\n');
  return frame;
}

/** Opens `url` as an SSE stream with `headers`; resolves once the status line and headers arrived. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      const frames: SseFrame[] = [];
      const waiters: Array<() => void> = [];
      let pending = '';
      let body = '';
      let ended = false;
      let endedResolve!: () => void;
      const endedPromise = new Promise<void>((r) => (endedResolve = r));
      const wake = (): void => {
        for (const w of waiters.splice(0)) w();
      };
      const finish = (): void => {
        ended = true;
        endedResolve();
        wake();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        get body() {
          return body;
        },
        res,
        ended: endedPromise,
        get isEnded() {
          return ended;
        },
        get buffered() {
          return frames.length;
        },
        close: () => {
          req.destroy();
          res.destroy();
        },
        next: async (timeoutMs = 5000) => {
          const deadline = Date.now() + timeoutMs;
          while (frames.length === 0) {
            if (ended) throw new Error('stream ended');
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`no frame within ${timeoutMs} ms`);
            await new Promise<void>((r) => {
              const timer = setTimeout(r, left);
              waiters.push(() => {
                clearTimeout(timer);
                r();
              });
            });
          }
          return frames.shift()!;
        },
        nextEvent: async (timeoutMs = 5000) => {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            const frame = await client.next(Math.max(1, deadline - Date.now()));
            if (frame.event !== 'heartbeat') return frame;
          }
        },
      };
      if (res.statusCode !== 200) {
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(client));
        return;
      }
      res.on('data', (chunk: string) => {
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          frames.push(parseFrame(pending.slice(0, end + 2)));
          pending = pending.slice(end + 2);
        }
        wake();
      });
      resolve(client);
    });
    req.on('error', reject);
    req.end();
  });
}
