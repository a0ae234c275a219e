import type { FastifyInstance, FastifyRequest } from 'fastify';

type HttpError = Error & { statusCode: number };

const httpError = (statusCode: number, message: string): HttpError =>
  Object.assign(new Error(message), { statusCode });

/** True when the route declares a request body (a body schema); every other route takes none. */
const takesBody = (request: FastifyRequest): boolean => request.routeOptions.schema?.body !== undefined;

/** True for the raw workspace-service proxy, which forwards bodies of any type untouched. */
const isRawProxy = (request: FastifyRequest): boolean => request.routeOptions.config?.rawBody === true;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes bodies of any content type as raw bytes (the workspace-service proxy). */
    rawBody?: boolean;
  }
}

/**
 * The request-body parsers, one rule for every route:
 * - `application/json` is the only body type; JSON is UTF-8 (RFC 8259 §8.1), so invalid bytes are refused,
 *   not silently replaced by U+FFFD and stored. An empty JSON body is no body (a mutation without one,
 *   unregister or stop, may still say `Content-Type: application/json`).
 * - Any other content type (Fastify's default text/plain parser is removed so it is no exception) is read
 *   only to see whether there is a body: an operation that takes none ignores the content type of an empty
 *   body (Node's axios sends `application/x-www-form-urlencoded` with no data on a bare POST or DELETE),
 *   and refuses a non-empty one with 415; an operation with a JSON body answers 415 whatever it got.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      return done(httpError(400, 'request body is not valid UTF-8'), undefined);
    }
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(httpError(400, 'request body is not valid JSON'), undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    const type = request.headers['content-type'] ?? '';
    if (isRawProxy(request)) return done(null, bytes);
    if (takesBody(request)) {
      return done(httpError(415, `Content-Type ${type} is not supported here; send application/json`));
    }
    if (bytes.length === 0) return done(null, undefined);
    done(
      httpError(
        415,
        `this operation takes no request body; got ${bytes.length} bytes of ${type || 'an unnamed type'}`,
      ),
    );
  });
}
