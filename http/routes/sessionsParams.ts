import { Type } from 'typebox';
import { CityNameParam } from '../../schemas/beadsCommon.ts';
import { MutationHeaders } from '../../schemas/cities.ts';

/** The OpenAPI tag of the session family. */
export const sessionTags = ['sessions'];

/** Path of the collection routes. */
export const CityParams = Type.Object({ cityName: CityNameParam });

/** Path of the per-session routes: `id` is resolved by the service (bead id, then session name, then alias). */
export const SessionParams = Type.Object({
  cityName: CityNameParam,
  id: Type.String({ description: 'Session id, alias or runtime session name.' }),
});

/** `X-GC-Request` (required, as upstream declares it; its absence is the middleware's 403 `csrf:`). */
export const SessionMutationHeaders = MutationHeaders;

/** `X-GC-Request` and `Idempotency-Key` (the asynchronous operations). */
export const IdempotentSessionMutationHeaders = Type.Object({
  ...MutationHeaders.properties,
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Retry key: a retried request with the same key answers the original 202 body and does the work once.',
    }),
  ),
});
