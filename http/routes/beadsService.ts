import type { FastifyReply } from 'fastify';

import type { BeadStore } from '../../actors/beads/index.ts';
import { BEAD_SERVICE } from '../../actors/beads/index.ts';
import { cityService } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';

/**
 * The bead store of a running city: what every beads, mail and convoys route serves from.
 * @throws NotFoundError (404 `not_found: city not found or not running: <name>`) while the city is
 *   absent or starting; UnavailableError (503 `unavailable: bead store is not started for city <name>`)
 *   when the city runs without its bead service (its start-up phase has not run, or failed).
 */
export function beadStoreFor(deps: Pick<AppDeps, 'cities'>, cityName: string): BeadStore {
  return cityService(deps, cityName, BEAD_SERVICE, 'bead store');
}

/**
 * The read headers: `X-GC-Index`, the city event index the answer reflects (use it as the next
 * blocking query's `index`), and `X-GC-Cache-Age-S`, always 0 because the read model is live.
 */
export function setIndexHeaders(reply: FastifyReply, store: BeadStore): FastifyReply {
  return reply.header('X-GC-Index', String(store.index)).header('X-GC-Cache-Age-S', '0');
}
