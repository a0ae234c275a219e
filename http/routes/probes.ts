import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  ProviderReadinessQuery,
  ProviderReadinessResponse,
  ReadinessQuery,
  ReadinessResponse,
} from '../../schemas/readiness.ts';
import type { AppDeps } from '../deps.ts';

/** `GET /v0/readiness` and `GET /v0/provider-readiness`: host probes of providers and tools. */
export function probeRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v0/readiness',
    {
      schema: {
        operationId: 'get-v0-readiness',
        summary: 'Readiness of providers and tools on this host',
        description:
          'Probes each item (default claude, codex, gemini, github_cli); results are cached for 2 s unless `fresh`. Unknown items are 400.',
        tags: ['supervisor'],
        querystring: ReadinessQuery,
        response: { 200: ReadinessResponse },
      },
    },
    async (request) => ({
      items: await deps.supervisor.readiness.items(request.query.items, request.query.fresh ?? false),
    }),
  );

  app.get(
    '/v0/provider-readiness',
    {
      schema: {
        operationId: 'get-v0-provider-readiness',
        summary: 'Readiness of providers on this host',
        description:
          'Probes each provider (default claude, codex, gemini): installed, and authenticated as onboarding requires. Unknown providers are 400.',
        tags: ['supervisor'],
        querystring: ProviderReadinessQuery,
        response: { 200: ProviderReadinessResponse },
      },
    },
    async (request) => ({
      providers: await deps.supervisor.readiness.providers(
        request.query.providers,
        request.query.fresh ?? false,
      ),
    }),
  );
}
