import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';

/** Event lists and SSE streams at city and supervisor scope (issue: the event API). */
export function eventRoutes(_app: FastifyInstance, _deps: AppDeps): void {}
