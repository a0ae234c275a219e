import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { tokenAccepted } from './apiToken.ts';
import type { AppDeps } from './deps.ts';
import { newRequestId } from './middleware.ts';
import { forwardHttp } from './svcForward.ts';
import { svcTarget } from './svcAccess.ts';
import { failSvc, resolveSvc } from './svcResolve.ts';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

const CITY_PREFIX = '/v0/city/';

/**
 * Forwards `req` to its workspace service when it is a proxied request that may plainly pass, and says
 * whether it did. Everything else is left untouched for Fastify, whose hooks and route answer it as before
 * with the same problems: a CORS preflight (the middleware's 204), a token
 * refused (401), a cluster that cannot serve the city here (503, 421, forwarding to the owner), a city,
 * service or access rule that refuses (404/403/503), and every request while the app closes. What passes
 * costs no Fastify lifecycle: for a route that only forwards, hooks, reply and request objects were most of
 * the supervisor's CPU per proxied request (bench/svcProxy.ts).
 */
function forwardedFast(
  deps: AppDeps,
  closing: () => boolean,
  req: IncomingMessage,
  res: ServerResponse,
): boolean {
  const url = req.url;
  if (url === undefined || !url.startsWith(CITY_PREFIX) || closing()) return false;
  if (req.method === 'OPTIONS') return false;
  const target = svcTarget(url);
  if (!target) return false;
  if (!tokenAccepted({ headers: req.headers, url }, deps.config.apiToken)) return false;
  const cluster = deps.cluster;
  if (cluster) {
    if (!cluster.connected) return false;
    const route = cluster.route(target.city);
    if (route && route.kind !== 'me') return false;
  }
  const resolved = resolveSvc(deps, req);
  if ('problem' in resolved) return false;
  const requestId = newRequestId();
  req.url = resolved.path;
  forwardHttp(req, res, resolved, requestId, (err) => failSvc(res, requestId, err));
  return true;
}

/**
 * Puts the proxy's fast path in front of Fastify's request listener on `app.server`: the listeners the
 * server had (Fastify's, added when the server was made) run only for requests the fast path leaves.
 * `app.inject` does not go through the server, so tests that inject still reach the Fastify route.
 */
export function serveSvcBeforeFastify(app: FastifyInstance, deps: AppDeps): void {
  const server = app.server;
  const behind = server.listeners('request') as RequestListener[];
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  const isClosing = (): boolean => closing;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (forwardedFast(deps, isClosing, req, res)) return;
    for (const listener of behind) listener.call(server, req, res);
  });
}
