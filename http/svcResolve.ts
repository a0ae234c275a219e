import type { IncomingMessage, ServerResponse } from 'node:http';
import { WORKSPACE_SERVICES, type ServiceRoute } from '../actors/workspaceServices/index.ts';
import type { AppDeps } from './deps.ts';
import { PROBLEM_TYPE, problem, type Problem } from './problem.ts';
import { svcRefusal, svcTarget, withoutSupervisorToken } from './svcAccess.ts';

/** The spec's static 404 of the proxy (part 7): no city name in it, unlike the typed routes'. */
export const CITY_NOT_RUNNING = 'city not found or not running';

/** What a proxied request resolves to: the service's socket and path, or the problem to answer instead. */
export type SvcResolved = { socketPath: string; path: string } | { problem: Problem };

/**
 * Resolves `/v0/city/<c>/svc/<name>/…` against the running cities and the service's access rules. Only a
 * request that may pass is changed: the supervisor's token is taken out of its headers (the returned path
 * is without it); a refused one is left as it came, so another handler may still answer it.
 */
export function resolveSvc(deps: AppDeps, req: IncomingMessage): SvcResolved {
  const target = svcTarget(req.url ?? '');
  const city = target && deps.cities.running(target.city);
  if (!target || !city) return { problem: problem(404, `not_found: ${CITY_NOT_RUNNING}`) };
  const services = city.services[WORKSPACE_SERVICES];
  const route: ServiceRoute | undefined = services?.route(target.service);
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

/**
 * Answers a proxied request whose service did not answer with `502 bad_gateway`, or cuts the response when
 * the service's answer had already begun (its status is out: only the connection can say it broke off).
 */
export function failSvc(res: ServerResponse, requestId: string, err: Error): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({
    ...problem(502, `bad_gateway: service did not answer: ${err.message}`),
    title: 'Bad Gateway',
  });
  res.writeHead(502, {
    'X-GC-Request-Id': requestId,
    'content-type': PROBLEM_TYPE,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
