import type { FastifyInstance } from 'fastify';

/** `GET /openapi.json`: the OpenAPI 3.1 document generated from the routes' own schemas. */
export function openapiRoutes(app: FastifyInstance): void {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
