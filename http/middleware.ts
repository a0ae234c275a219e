import { randomHex } from '../actors/randomHex.ts';
import type { FastifyInstance } from 'fastify';
import { CsrfError, ReadOnlyError } from '../actors/errors.ts';

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const LOCAL_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
// The raw workspace-service proxy applies its own rules (upstream does the same).
const SVC_PATH = /^\/(v0\/city\/[^/]+\/)?svc(\/|$)/;

/** 16 lowercase hex characters, as upstream's X-GC-Request-Id. */
export const newRequestId = (): string => randomHex(8);

export const isMutation = (method: string): boolean => MUTATIONS.has(method);

/**
 * Cross-cutting request handling, in order: request id on every response, CORS for loopback origins
 * (OPTIONS always 204), read-only mode, then the X-GC-Request anti-CSRF check on mutations.
 */
export function registerMiddleware(app: FastifyInstance, opts: { readOnly: boolean }): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-GC-Request-Id', request.id);
    const origin = request.headers.origin;
    if (origin && LOCAL_ORIGIN.test(origin)) {
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Vary', 'Origin');
      reply.header('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
      reply.header(
        'Access-Control-Allow-Headers',
        'Content-Type, Last-Event-ID, X-GC-Request, Idempotency-Key',
      );
      reply.header('Access-Control-Expose-Headers', 'X-GC-Index, X-GC-Request-Id');
    }
    if (request.method === 'OPTIONS') return reply.code(204).send();
    if (!isMutation(request.method) || SVC_PATH.test(request.url)) return;
    if (opts.readOnly) throw new ReadOnlyError();
    const marker = request.headers['x-gc-request'];
    if (typeof marker !== 'string' || marker.trim() === '') throw new CsrfError();
  });
}
