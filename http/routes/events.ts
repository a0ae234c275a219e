import type { FastifyInstance } from 'fastify';
import { EVENT_SCHEMAS, registerSchemas } from '../../schemas/eventSchemas.ts';
import type { AppDeps } from '../deps.ts';
import { streamRegistry } from '../sse/registry.ts';
import { cityEventRoutes } from './cityEvents.ts';
import { supervisorEventRoutes } from './supervisorEvents.ts';

/**
 * Event lists and SSE streams at city and supervisor scope, and the event schemas as shared schemas (OpenAPI
 * components). They live in their own encapsulated context: Fastify hands every shared schema of a context
 * to each route's serializer build, and ~190 event schemas in the common scope tripled the app's startup.
 * Every open stream is ended when the app closes, so shutdown never waits on a client.
 */
export function eventRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.addHook('preClose', async () => streamRegistry(deps).closeAll('shutdown'));
  void app.register(async (events) => {
    registerSchemas(events, EVENT_SCHEMAS);
    cityEventRoutes(events, deps);
    supervisorEventRoutes(events, deps);
  });
}
