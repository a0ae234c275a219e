import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { cityLifecycleRoutes } from './cityLifecycle.ts';
import { cityListRoutes } from './cityList.ts';
import { cityScopedRoutes } from './cityScoped.ts';
import { cityStatusRoutes } from './cityStatus.ts';
import { probeRoutes } from './probes.ts';
import { svcProxyRoutes } from './svcProxy.ts';

/**
 * Cities and supervisor probes: list, create, per-city reads, status, health, stop, suspend, unregister,
 * readiness, svc.
 */
export function cityRoutes(app: FastifyInstance, deps: AppDeps): void {
  cityListRoutes(app, deps);
  cityLifecycleRoutes(app, deps);
  cityScopedRoutes(app, deps);
  cityStatusRoutes(app, deps);
  probeRoutes(app, deps);
  svcProxyRoutes(app, deps);
}
