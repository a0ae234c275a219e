import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { eventLineSchema } from '../../schemas/eventLineSchema.ts';

const JsonDocument = Type.Object({}, { additionalProperties: true, description: 'A JSON document.' });

/**
 * The published schemas: the OpenAPI 3.1 document generated from the routes' own schemas (at
 * `/openapi.json`, and at `/v0/schema/openapi.json` beside `events.json`, which refers to it relatively),
 * and the `gc events` line schema `events.json`.
 */
export function openapiRoutes(app: FastifyInstance): void {
  const openapi = async () => app.swagger();
  const schema = (operationId: string, summary: string) => ({
    operationId,
    summary,
    response: { 200: JsonDocument },
  });
  const raw = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };
  app.get('/openapi.json', { schema: schema('get-openapi', 'The OpenAPI 3.1 document'), ...raw }, openapi);
  app.get(
    '/v0/schema/openapi.json',
    { schema: schema('get-v0-schema-openapi', 'The OpenAPI 3.1 document, beside events.json'), ...raw },
    openapi,
  );
  const lines = eventLineSchema();
  app.get(
    '/v0/schema/events.json',
    { schema: schema('get-v0-schema-events', 'The `gc events` JSON line schema'), ...raw },
    async () => lines,
  );
}
