import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { configRoutes } from './config.ts';
import { patchRoutes } from './patches.ts';
import { providerRoutes } from './providers.ts';
import { rigRoutes } from './rigs.ts';

/** The city's configuration surface: config views and packs, providers, rigs and patches. */
export function configSurfaceRoutes(app: FastifyInstance, deps: AppDeps): void {
  configRoutes(app, deps);
  providerRoutes(app, deps);
  rigRoutes(app, deps);
  patchRoutes(app, deps);
}
