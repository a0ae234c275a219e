import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';

/** The convoys family under /v0/city/{cityName} (issue: beads, mail and convoys). */
export function convoyRoutes(_app: FastifyInstance, _deps: AppDeps): void {}
