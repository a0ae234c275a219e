import { randomHex } from '../actors/runtime/randomHex.ts';
import type { FastifyInstance } from 'fastify';
import { CsrfError, ReadOnlyError, UnauthorizedError } from '../actors/runtime/errors.ts';
import { tokenAccepted } from './apiToken.ts';

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const LOCAL_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
// The raw workspace-service proxy applies its own rules (upstream does the same).
const SVC_PATH = /^\/(v0\/city\/[^/]+\/)?svc(\/|$)/;

/** 16 lowercase hex characters, as upstream's X-GC-Request-Id. */
export const newRequestId = (): string => randomHex(8);

export const isMutation = (method: string): boolean => MUTATIONS.has(method);

/**
 * Cross-cutting request handling, in order: request id on every response, CORS for loopback origins
 * (OPTIONS always 204), the API token when one is configured (401, reads and streams included), read-only
 * mode, then the X-GC-Request anti-CSRF check on mutations.
 */
export function registerMiddleware(
  app: FastifyInstance,
  opts: { readOnly: boolean; apiToken?: string | undefined },
): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-GC-Request-Id', request.id);
    const origin = request.headers.origin;
    if (origin && LOCAL_ORIGIN.test(origin)) {
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Vary', 'Origin');
      reply.header('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
      reply.header(
        'Access-Control-Allow-Headers',
        'Authorization, Content-Type, Last-Event-ID, X-GC-Request, Idempotency-Key',
      );
      reply.header('Access-Control-Expose-Headers', 'X-GC-Index, X-GC-Request-Id');
    }
    if (request.method === 'OPTIONS') return reply.code(204).send();
    if (!tokenAccepted(request, opts.apiToken)) {
      reply.header('WWW-Authenticate', 'Bearer realm="gc"');
      throw new UnauthorizedError();
    }
    // The token is no query parameter of any operation: strict query schemas must not see it.
    const query = request.query as Record<string, unknown> | undefined;
    if (query && typeof query === 'object' && 'access_token' in query) delete query.access_token;
    if (!isMutation(request.method) || SVC_PATH.test(request.url)) return;
    if (opts.readOnly) throw new ReadOnlyError();
    const marker = request.headers['x-gc-request'];
    if (typeof marker !== 'string' || marker.trim() === '') throw new CsrfError();
  });
}
