import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';

/** Cities and supervisor probes (issue: supervisor and its cities). */
export function cityRoutes(_app: FastifyInstance, _deps: AppDeps): void {}
