import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ConflictError } from '../../actors/runtime/errors.ts';
import { present } from '../../machines/beads/ready.ts';
import { BeadClaimBodySchema, BeadClaimResponseSchema } from '../../schemas/beadClaim.ts';
import { CityNameParam, indexedResponse, MutationHeaders } from '../../schemas/beadsCommon.ts';
import type { AppDeps } from '../deps.ts';
import { beadStoreFor, setIndexHeaders } from './beadsService.ts';

/**
 * The atomic claim `bd update --claim` needs: the bead becomes the claimant's and in progress only if
 * nobody else holds it; a bead another holds is a 409 naming the holder (recorded as
 * `bead.claim_rejected`). Upstream's API has no such operation (bd does it in SQL), so it is ours.
 */
export function beadClaimRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/v0/city/:cityName/bead/:id/claim',
    {
      schema: {
        operationId: 'claim-bead',
        summary: 'Claim a bead atomically (409 when another holds it)',
        tags: ['beads'],
        params: Type.Object({ cityName: CityNameParam, id: Type.String({ description: 'Bead ID.' }) }),
        headers: MutationHeaders,
        body: BeadClaimBodySchema,
        response: { 200: indexedResponse(BeadClaimResponseSchema, 'The bead, held by the claimant.') },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const result = await store.claim(request.params.id, request.body.claimant);
      setIndexHeaders(reply, store);
      if (!result.claimed) {
        throw new ConflictError(`bead ${request.params.id} already claimed by ${result.holder}`);
      }
      return present(store.model, result.bead);
    },
  );
}
