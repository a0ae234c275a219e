import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { CONFIG_SERVICE, type ConfigApi } from '../../actors/config/index.ts';

import { CityNameParam } from '../../schemas/beadsCommon.ts';
import { cityService } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';

/**
 * The config service of a running city: what the config, packs, providers, rigs and patches routes serve.
 * @throws NotFoundError (404 `not_found: city not found or not running: <name>`) while the city is not
 *   running; UnavailableError (503) when it runs without a config service.
 */
export function configApiFor(deps: Pick<AppDeps, 'cities'>, cityName: string): ConfigApi {
  return cityService(deps, cityName, CONFIG_SERVICE, 'config service');
}

/** `X-GC-Index` (the city log's head the answer reflects) and `X-GC-Cache-Age-S` (0: read live). */
export function setConfigIndexHeaders(reply: FastifyReply, api: ConfigApi): FastifyReply {
  return reply.header('X-GC-Index', String(api.index)).header('X-GC-Cache-Age-S', '0');
}

/** Who asks, for every config mutation over HTTP. */
export const CONFIG_ACTOR = 'api';

export const CityParams = Type.Object({ cityName: CityNameParam });
export const NameParams = (what: string) =>
  Type.Object({ cityName: CityNameParam, name: Type.String({ minLength: 1, description: `${what} name.` }) });
