import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppDeps } from '../deps.ts';

const startedAt = Date.now();

/** `GET /health`: the liveness probe (the only typed path outside `/v0`). */
export function healthRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get(
    '/health',
    {
      schema: {
        operationId: 'get-health',
        summary: 'Liveness probe',
        response: {
          200: Type.Object({
            status: Type.String(),
            uptime_sec: Type.Integer(),
            journal: Type.String(),
          }),
        },
      },
    },
    async () => ({
      status: 'ok',
      uptime_sec: Math.floor((Date.now() - startedAt) / 1000),
      journal: deps.config.natsUrl ? 'jetstream' : 'file',
    }),
  );
}
