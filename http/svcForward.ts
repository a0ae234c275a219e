import type { IncomingMessage, ServerResponse } from 'node:http';
import { Pool, type Dispatcher } from 'undici';

/**
 * Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1), plus `host` (the service is
 * addressed by its socket) and `expect` (undici refuses it; the body is streamed as it comes anyway).
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'expect',
]);

/** One connection pool per service socket; a pool has no connection cap, so SSE streams never queue. */
const pools = new Map<string, Pool>();

const poolFor = (socketPath: string): Pool => {
  let pool = pools.get(socketPath);
  if (!pool) {
    pool = new Pool('http://gc-service', { socketPath, connections: null });
    pools.set(socketPath, pool);
  }
  return pool;
};

/** Where a request goes: the service's unix socket and the path (with query) on it. */
export interface SvcTarget {
  socketPath: string;
  path: string;
}

/**
 * undici's dispatch handler that writes the service's answer into `res` as it comes: status and headers
 * (hop-by-hop ones dropped, duplicates such as Set-Cookie kept, `X-GC-Request-Id` added), then each chunk
 * the moment it arrives (an SSE frame is never held back), with undici paused while `res` is full.
 * The lower-level handler rather than `pool.stream`: no AbortSignal, async resource nor header object per
 * request (bench/svcProxy.ts: the supervisor's CPU per proxied request).
 */
class ResponseWriter implements Dispatcher.DispatchHandler {
  #abort: ((err?: Error) => void) | undefined;
  /** The client went away first: the service's request is aborted and its error is nobody's to answer. */
  #gone = false;
  /** Something of the body (or its end) was written: the headers went out with it. */
  #wrote = false;
  /** undici's resume of a paused answer (see onData). */
  #resume: (() => void) | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly requestId: string,
    private readonly fail: (err: Error) => void,
  ) {
    res.once('close', () => {
      if (res.writableFinished) return;
      this.#gone = true;
      this.#abort?.();
    });
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.#gone) abort();
    else this.#abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    const res = this.res;
    this.#resume = resume;
    // A flat [name, value, …] list: writeHead keeps repeated names as they came.
    const out: string[] = ['X-GC-Request-Id', this.requestId];
    let sized = false;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!.toString('latin1');
      const lower = name.toLowerCase();
      if (HOP_BY_HOP.has(lower)) continue;
      if (lower === 'content-length') sized = true;
      out.push(name, rawHeaders[i + 1]!.toString('latin1'));
    }
    res.writeHead(statusCode, out);
    // A sized answer (a small one comes whole with its headers) sends them with its first chunk, in one write.
    // Any other (an SSE stream, a chunked body) sends them on their own before the loop waits for more, so a
    // stream's client sees its status at once.
    if (!sized)
      setImmediate(() => {
        if (!this.#wrote && !res.destroyed) res.flushHeaders();
      });
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#wrote = true;
    if (this.res.write(chunk)) return true;
    // `res` is full: undici pauses until it drains (a listener only then, not on every answer).
    this.res.once('drain', this.#resume!);
    return false;
  }

  onComplete(): void {
    this.#wrote = true;
    this.res.end();
  }

  onError(err: Error): void {
    if (!this.#gone) this.fail(err);
  }
}

/**
 * Forwards one plain HTTP request to a service's unix socket with undici and streams the answer into `res`
 * chunk by chunk; a request body is streamed too. Adds `X-Forwarded-For`/`-Host`/`-Proto`, and
 * `X-GC-Request-Id` to the answer. A client that goes away aborts the request to the service. `fail` is
 * told when the service does not answer (or breaks off): the caller answers 502, or cuts `res` when the
 * answer had begun. Effects: a request on a pooled connection.
 */
export function forwardHttp(
  req: IncomingMessage,
  res: ServerResponse,
  target: SvcTarget,
  requestId: string,
  fail: (err: Error) => void,
): void {
  const given = req.headers;
  const headers: Record<string, string | string[]> = {};
  for (const name in given) {
    const value = given[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  const peer = req.socket.remoteAddress ?? '';
  const xff = given['x-forwarded-for'];
  headers['x-forwarded-for'] = typeof xff === 'string' && xff !== '' ? `${xff}, ${peer}` : peer;
  headers['x-forwarded-host'] = given.host ?? '';
  headers['x-forwarded-proto'] = 'http';
  // A body is what the request's framing announces, whatever the method.
  const length = given['content-length'];
  const hasBody = given['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  poolFor(target.socketPath).dispatch(
    { path: target.path, method: req.method ?? 'GET', headers, body: hasBody ? req : null },
    new ResponseWriter(res, requestId, fail),
  );
}
