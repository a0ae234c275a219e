import { Type, type Static } from 'typebox';
import { named } from './named.ts';

/**
 * The events of the cluster mode (ours: upstream has no cluster; served only with `include=internal`,
 * docs/compatibility.md).
 */

/**
 * `city.owner_changed`: a supervisor took a city's lease and fenced its log. Written by the new owner as
 * its first append, at the head it read, so every later append of the previous owner (at an older head)
 * is refused by JetStream's expected-last-sequence check and, once folded, by the owner check.
 */
export const CityOwnerChangedPayload = named(
  Type.Object(
    {
      owner: Type.String({ minLength: 1 }),
      url: Type.String(),
      /** The lease's KV revision when taken: grows with every take of any city's lease. */
      epoch: Type.Integer({ minimum: 1 }),
    },
    { $id: 'CityOwnerChangedPayload', additionalProperties: false },
  ),
);
export type CityOwnerChangedPayload = Static<typeof CityOwnerChangedPayload>;

export const CLUSTER_PAYLOADS = {
  'city.owner_changed': CityOwnerChangedPayload,
} as const;
