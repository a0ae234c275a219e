import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createProxyServer } from 'http-proxy-3';
import { NotFoundError, UnauthorizedError, UnavailableError } from '../../actors/runtime/errors.ts';
import { tokenAccepted } from '../apiToken.ts';
import type { AppDeps } from '../deps.ts';
import { newRequestId } from '../middleware.ts';
import { PROBLEM_TYPE, problem, sendProblem, type Problem } from '../problem.ts';
import { svcTarget } from '../svcAccess.ts';
import { serveSvcBeforeFastify } from '../svcFastPath.ts';
import { forwardHttp } from '../svcForward.ts';
import { CITY_NOT_RUNNING, failSvc, resolveSvc } from '../svcResolve.ts';

/**
 * Two well-kept libraries, each where it measured best. Plain requests (SSE included) go through undici
 * (http/svcForward.ts: the client under Node's own fetch), which streams both bodies chunk by chunk and cost
 * the supervisor about 40% less CPU per proxied request than http-proxy-3 over a node:http keep-alive agent
 * (bench/svcProxy.ts). WebSocket upgrades go through http-proxy-3 (a maintained TypeScript rewrite of
 * http-proxy), which takes a `{socketPath}` target per request and pipes the upgraded sockets.
 * @fastify/http-proxy binds its upstream when the plugin registers and proxies WebSockets through `ws` to a
 * TCP URL; our upstreams are unix sockets that come and go with cities and restarts.
 */
const wsProxy = createProxyServer({ ws: true, xfwd: true });

/**
 * `/v0/city/{cityName}/svc/*`: the raw workspace-service proxy, outside the typed API (hidden from the
 * OpenAPI document). Requests are forwarded before Fastify reads their body (streamed both ways), to the
 * service's unix socket with the path after `/svc/<name>`; WebSocket upgrades go the same way from the
 * server's `upgrade` event. A city that is not running answers the spec's static
 * `404 not_found: city not found or not running`; an unknown service `404 not_found: service route not
 * found`; a service that is not ready `503 service_unavailable: <reason>`; a service that fails mid-way 502.
 */
export function svcProxyRoutes(app: FastifyInstance, deps: AppDeps): void {
  // Requests that plainly pass are forwarded before Fastify sees them; the route below answers the rest.
  serveSvcBeforeFastify(app, deps);
  const forward = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const resolved = resolveSvc(deps, request.raw);
    if ('problem' in resolved) {
      if (resolved.problem.status === 404 && resolved.problem.detail.endsWith(CITY_NOT_RUNNING))
        throw new NotFoundError(CITY_NOT_RUNNING);
      await sendProblem(reply, resolved.problem);
      return;
    }
    reply.hijack();
    const res = reply.raw;
    request.raw.url = resolved.path;
    forwardHttp(request.raw, res, resolved, request.id, (err) => failSvc(res, request.id, err));
  };
  // Proxied from onRequest: the lifecycle stops at the hijack, so no body parser ever reads the stream.
  app.all(
    '/v0/city/:cityName/svc/*',
    { schema: { hide: true }, config: { rawBody: true }, onRequest: forward },
    async () => {
      throw new UnavailableError('workspace service proxy did not take the request');
    },
  );

  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!svcTarget(req.url ?? '')) return servePlainly(app.server, req, socket, head);
    const refuse = (p: Problem): void => {
      const body = JSON.stringify(p);
      socket.end(
        `HTTP/1.1 ${p.status} ${p.title}\r\nContent-Type: ${PROBLEM_TYPE}\r\nX-GC-Request-Id: ${newRequestId()}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    };
    if (!tokenAccepted({ headers: req.headers, url: req.url ?? '' }, deps.config.apiToken))
      return refuse(problem(401, new UnauthorizedError().detail));
    const resolved = resolveSvc(deps, req);
    if ('problem' in resolved) return refuse(resolved.problem);
    req.url = resolved.path;
    wsProxy.ws(
      req,
      socket,
      head,
      { target: { socketPath: resolved.socketPath, host: 'localhost', port: 80 } },
      () => socket.destroy(),
    );
  });
}

/**
 * Node hands every request that carries `Upgrade` to the `upgrade` listeners and never to `request`, so
 * without this a `GET /v0/cities` with `Upgrade: websocket` would hang. Only `/svc/` paths upgrade; any
 * other is served as the plain request it also is (a server may ignore Upgrade: RFC 9110 §7.8), then the
 * connection closes.
 */
function servePlainly(server: Server, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  if (head.length > 0) socket.unshift(head);
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.on('finish', () => socket.end());
  server.emit('request', req, res);
}
