import { connect } from 'node:net';

/**
 * One HTTP/1.1 exchange for bd and gc's agent-facing commands: a request written on a plain TCP socket
 * with `Connection: close`, the answer read up to its Content-Length (or, chunked, to the socket's end).
 * node:http costs a process about as much to load as all of bd's own code (bench/REPORT.md "## work"),
 * and these commands send one to five small JSON requests and exit, so they need none of its agents,
 * pooling or streaming. An `https:` API goes through node:https, loaded only then.
 */

export interface WireAnswer {
  status: number;
  text: string;
}

/** The body of a `Transfer-Encoding: chunked` answer. Pure. */
export function unchunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) throw new Error('truncated chunked body');
    const size = Number.parseInt(raw.subarray(at, eol).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size)) throw new Error('bad chunk size');
    if (size === 0) return Buffer.concat(parts);
    const start = eol + 2;
    if (start + size > raw.length) throw new Error('truncated chunked body');
    parts.push(raw.subarray(start, start + size));
    at = start + size + 2;
  }
}

/** Splits a whole HTTP/1.1 answer into its status and body text. Pure. */
export function parseAnswer(raw: Buffer): WireAnswer {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error('the connection closed before the answer was whole');
  const head = raw.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '');
  if (!m) throw new Error(`not an HTTP answer: ${JSON.stringify((head[0] ?? '').slice(0, 40))}`);
  const headers = new Map<string, string>();
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = raw.subarray(end + 4);
  if (/\bchunked\b/i.test(headers.get('transfer-encoding') ?? '')) body = unchunk(body);
  else {
    const length = headers.get('content-length');
    if (length !== undefined) {
      const n = Number(length);
      if (body.length < n) throw new Error('the connection closed before the answer was whole');
      body = body.subarray(0, n);
    }
  }
  return { status: Number(m[1]), text: body.toString('utf8') };
}

/** Sends one request and resolves with the whole answer; a socket error rejects with its message. */
export async function exchange(
  url: URL,
  method: string,
  headers: Record<string, string>,
  payload?: string,
): Promise<WireAnswer> {
  if (url.protocol === 'https:') return exchangeTls(url, method, headers, payload);
  const body = payload === undefined ? undefined : Buffer.from(payload, 'utf8');
  const lines = [`${method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, 'connection: close'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  if (body) lines.push(`content-length: ${body.length}`);
  const request = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80) });
    const settle = (answer: WireAnswer): void => {
      settled = true;
      socket.destroy();
      resolve(answer);
    };
    socket.setNoDelay(true);
    // Written, not ended: Node's server drops a request whose socket is half-closed before it answers.
    socket.on('connect', () => socket.write(body ? Buffer.concat([request, body]) : request));
    let size = 0;
    let need: number | null | undefined;
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      // Joined only until the head is in (its first packet, as a rule), so a big answer is copied once.
      if (need === undefined) need = answerLength(Buffer.concat(chunks));
      if (typeof need === 'number' && size >= need) settle(parseAnswer(Buffer.concat(chunks)));
    });
    socket.on('error', (err) => {
      if (!settled) reject(err);
    });
    socket.on('end', () => {
      if (settled) return;
      try {
        settle(parseAnswer(Buffer.concat(chunks)));
      } catch (err) {
        settled = true;
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

/**
 * The whole answer's length in bytes by its Content-Length; null when it has none (chunked: read to the
 * end); undefined while `raw` does not hold the whole head yet. Pure.
 */
export function answerLength(raw: Buffer): number | null | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const m = /\r\ncontent-length:\s*(\d+)/i.exec(raw.subarray(0, end).toString('latin1'));
  return m ? end + 4 + Number(m[1]) : null;
}

async function exchangeTls(
  url: URL,
  method: string,
  headers: Record<string, string>,
  payload?: string,
): Promise<WireAnswer> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
