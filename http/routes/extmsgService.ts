import type { FastifyReply } from 'fastify';

import { EXTMSG_SERVICE } from '../../actors/extmsg/index.ts';
import type { ExtmsgService } from '../../actors/extmsg/index.ts';
import { cityService } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';

/**
 * The extmsg service of a running city.
 * @throws NotFoundError (404 `not_found: city not found or not running: <name>`) while the city is absent
 *   or starting; UnavailableError (503) when it runs without its extmsg service.
 */
export function extmsgFor(deps: Pick<AppDeps, 'cities'>, cityName: string): ExtmsgService {
  return cityService(deps, cityName, EXTMSG_SERVICE, 'extmsg service');
}

/** `X-GC-Index` (the city event index the answer reflects) and `X-GC-Cache-Age-S` (0: the model is live). */
export function setExtmsgIndexHeaders(reply: FastifyReply, service: ExtmsgService): FastifyReply {
  return reply.header('X-GC-Index', String(service.index)).header('X-GC-Cache-Age-S', '0');
}
