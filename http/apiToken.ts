import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** The query parameter and cookie an `EventSource` (which cannot set headers) carries the token in. */
export const TOKEN_QUERY = 'access_token';
export const TOKEN_COOKIE = 'gc_token';

// Probes of load balancers and health checks carry no credentials and learn nothing from the answer.
const OPEN_PATHS = new Set(['/health']);

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * The token a request presents: `Authorization: Bearer <t>`, else the `access_token` query parameter,
 * else the `gc_token` cookie. Pure.
 */
export function presentedToken(request: Pick<FastifyRequest, 'headers' | 'url'>): string | undefined {
  const auth = request.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    return m ? m[1] : undefined;
  }
  const q = request.url.indexOf('?');
  if (q >= 0) {
    const fromQuery = new URLSearchParams(request.url.slice(q + 1)).get(TOKEN_QUERY);
    if (fromQuery) return fromQuery;
  }
  const cookie = request.headers.cookie;
  if (typeof cookie === 'string') {
    for (const part of cookie.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === TOKEN_COOKIE)
        return decodeURIComponent(part.slice(eq + 1).trim());
    }
  }
  return undefined;
}

/**
 * True when `request` may pass: no token is configured, the path is open (`/health`), or it presents the
 * configured token. Compares digests in constant time, so the answer's timing says nothing of the token.
 */
export function tokenAccepted(
  request: Pick<FastifyRequest, 'headers' | 'url'>,
  token: string | undefined,
): boolean {
  if (token === undefined) return true;
  if (OPEN_PATHS.has(request.url.split('?')[0]!)) return true;
  const given = presentedToken(request);
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}
