import type { FastifyInstance } from 'fastify';
import { NotFoundError, NotImplementedError } from '../../actors/errors.ts';
import type { AppDeps } from '../deps.ts';

/**
 * `/v0/city/{cityName}/svc/*`: the raw workspace-service proxy, outside the typed API (hidden from the
 * OpenAPI document). A city that is not running answers upstream's static 404; the proxy itself is not
 * built yet, so a running city answers 501.
 */
export function svcProxyRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.all(
    '/v0/city/:cityName/svc/*',
    { schema: { hide: true }, config: { rawBody: true } },
    async (request) => {
      const { cityName } = request.params as { cityName: string };
      if (!deps.cities.running(cityName)) throw new NotFoundError('city not found or not running');
      throw new NotImplementedError('workspace service proxy is not available in this supervisor yet');
    },
  );
}
