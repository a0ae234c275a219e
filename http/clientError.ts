import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { newRequestId } from './middleware.ts';
import { PROBLEM_TYPE, problem } from './problem.ts';

/** The error Node's HTTP parser raises (llhttp's code and reason), as far as this handler reads it. */
interface ParserError extends Error {
  code?: string;
  reason?: string;
}

/** The status of a request Node's parser refused: 408 timed out, 431 header block too large, else 400. */
const statusOf = (code: string | undefined): number =>
  code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;

/**
 * Fastify's `clientErrorHandler`: a request that Node's HTTP parser refuses (a bare CR or LF in a header,
 * a NUL, an obsolete line fold, a bad Content-Length, a header block over the limit) never reaches a route,
 * and Fastify's default answers it with its own JSON shape. This answers it as every other error is
 * answered: Problem Details with an X-GC-Request-Id, then closes the connection (the parser cannot go on).
 * Effects: writes to and destroys `socket`.
 */
export function problemOnClientError(err: ParserError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = statusOf(err.code);
  const why = err.reason ?? err.message;
  const body = JSON.stringify(
    problem(status, `invalid: malformed HTTP request: ${why}${err.code ? ` (${err.code})` : ''}`),
  );
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `X-GC-Request-Id: ${newRequestId()}\r\n` +
        `Content-Type: ${PROBLEM_TYPE}; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(err);
}
