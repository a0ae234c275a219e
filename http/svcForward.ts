import type { IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'undici';

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

/**
 * Forwards one plain HTTP request to a service's unix socket with undici and streams the answer into `res`
 * chunk by chunk (an SSE frame is written the moment it arrives); the request body is streamed too. Adds
 * `X-Forwarded-For`/`-Host`/`-Proto`. A client that goes away aborts the request to the service.
 * `fail` is told when the service does not answer (or breaks off): the caller answers 502, or cuts `res` when
 * the answer had begun. Effects: a request on a pooled connection.
 */
export function forwardHttp(
  req: IncomingMessage,
  res: ServerResponse,
  socketPath: string,
  path: string,
  fail: (err: Error) => void,
): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  const peer = req.socket.remoteAddress ?? '';
  const xff = req.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = typeof xff === 'string' && xff !== '' ? `${xff}, ${peer}` : peer;
  headers['x-forwarded-host'] = req.headers.host ?? '';
  headers['x-forwarded-proto'] = 'http';
  const aborter = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) aborter.abort();
  });
  const bodyless = req.method === 'GET' || req.method === 'HEAD';
  poolFor(socketPath).stream(
    {
      path,
      method: req.method ?? 'GET',
      headers,
      body: bodyless ? null : req,
      signal: aborter.signal,
    },
    ({ statusCode, headers: answer }) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer))
        if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      res.writeHead(statusCode, out);
      res.flushHeaders();
      return res;
    },
    (err) => {
      if (err && !aborter.signal.aborted) fail(err);
    },
  );
}
