import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createProxyServer } from 'http-proxy-3';
import { NotFoundError, UnauthorizedError, UnavailableError } from '../../actors/errors.ts';
import { WORKSPACE_SERVICES } from '../../actors/workspaceServices/startWorkspaceServices.ts';
import { WorkspaceServices, type ServiceRoute } from '../../actors/workspaceServices/workspaceServices.ts';
import { tokenAccepted } from '../apiToken.ts';
import type { AppDeps } from '../deps.ts';
import { newRequestId } from '../middleware.ts';
import { PROBLEM_TYPE, problem, sendProblem, type Problem } from '../problem.ts';
import { forwardHttp } from '../svcForward.ts';
import { svcRefusal, svcTarget, withoutSupervisorToken } from '../svcAccess.ts';

/** The spec's static 404 of the proxy (part 7): no city name in it, unlike the typed routes'. */
const CITY_NOT_RUNNING = 'city not found or not running';

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

/** What a proxied request resolves to: the service's socket, or the problem to answer instead. */
type Resolved = { socketPath: string; path: string } | { problem: Problem };

/** Resolves `/v0/city/<c>/svc/<name>/…` against the running cities and the service's access rules. */
function resolve(deps: AppDeps, req: IncomingMessage): Resolved {
  const target = svcTarget(req.url ?? '');
  const city = target && deps.cities.running(target.city);
  if (!target || !city) return { problem: problem(404, `not_found: ${CITY_NOT_RUNNING}`) };
  const services = city.services[WORKSPACE_SERVICES];
  const route: ServiceRoute | undefined =
    services instanceof WorkspaceServices ? services.route(target.service) : undefined;
  if (!route) return { problem: problem(404, 'not_found: service route not found') };
  const refusal = svcRefusal(
    route.publishMode,
    {
      method: req.method ?? 'GET',
      remoteAddress: req.socket.remoteAddress,
      marker: req.headers['x-gc-request'],
    },
    deps.readOnly,
  );
  if (refusal) return { problem: problem(refusal.status, refusal.detail) };
  if (!route.ok)
    return { problem: problem(503, `service_unavailable: ${route.reason || 'service is not ready'}`) };
  return {
    socketPath: route.socketPath,
    path: withoutSupervisorToken(req.headers, target.path, deps.config.apiToken),
  };
}

/** Ends a hijacked response with a problem, or cuts it when the service's answer had already begun. */
function failRaw(res: ServerResponse, status: number, detail: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({
    ...problem(status, detail),
    title: status === 502 ? 'Bad Gateway' : 'Error',
  });
  res.writeHead(status, { 'content-type': PROBLEM_TYPE, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * `/v0/city/{cityName}/svc/*`: the raw workspace-service proxy, outside the typed API (hidden from the
 * OpenAPI document). Requests are forwarded before Fastify reads their body (streamed both ways), to the
 * service's unix socket with the path after `/svc/<name>`; WebSocket upgrades go the same way from the
 * server's `upgrade` event. A city that is not running answers the spec's static
 * `404 not_found: city not found or not running`; an unknown service `404 not_found: service route not
 * found`; a service that is not ready `503 service_unavailable: <reason>`; a service that fails mid-way 502.
 */
export function svcProxyRoutes(app: FastifyInstance, deps: AppDeps): void {
  const forward = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const resolved = resolve(deps, request.raw);
    if ('problem' in resolved) {
      if (resolved.problem.status === 404 && resolved.problem.detail.endsWith(CITY_NOT_RUNNING))
        throw new NotFoundError(CITY_NOT_RUNNING);
      await sendProblem(reply, resolved.problem);
      return;
    }
    reply.hijack();
    const res = reply.raw;
    res.setHeader('X-GC-Request-Id', request.id);
    request.raw.url = resolved.path;
    forwardHttp(request.raw, res, resolved.socketPath, resolved.path, (err) =>
      failRaw(res, 502, `bad_gateway: service did not answer: ${err.message}`),
    );
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
    if (!svcTarget(req.url ?? '')) return; // not ours: another upgrade handler, or none
    const refuse = (p: Problem): void => {
      const body = JSON.stringify(p);
      socket.end(
        `HTTP/1.1 ${p.status} ${p.title}\r\nContent-Type: ${PROBLEM_TYPE}\r\nX-GC-Request-Id: ${newRequestId()}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    };
    if (!tokenAccepted({ headers: req.headers, url: req.url ?? '' }, deps.config.apiToken))
      return refuse(problem(401, new UnauthorizedError().detail));
    const resolved = resolve(deps, req);
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
