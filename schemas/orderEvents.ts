import { Type, type Static } from 'typebox';
import { named } from './named.ts';

/**
 * `order.enabled` / `order.disabled` (ours; docs/compatibility.md): an order switched on or off through the
 * API. Upstream rewrites `[[orders.overrides]]` in city.toml instead; we journal the switch so the
 * scheduler folds it from the city log like everything else it knows.
 */
export const OrderToggledPayload = named(
  Type.Object(
    {
      name: Type.String({ minLength: 1, description: 'The order name (orders/<name>.toml).' }),
      scoped_name: Type.String({
        minLength: 1,
        description: 'Its scoped name: `<name>` for a city order, `<name>:rig:<rig>` for a rig’s.',
      }),
      rig: Type.Optional(
        Type.String({ minLength: 1, description: 'The rig of a rig order (with name, the switch’s key).' }),
      ),
    },
    { $id: 'OrderToggledPayload', additionalProperties: false },
  ),
);
export type OrderToggledPayload = Static<typeof OrderToggledPayload>;

/** Our order state types and their payloads (spread into `OUR_EVENT_PAYLOADS`). */
export const ORDER_STATE_PAYLOADS = {
  'order.enabled': OrderToggledPayload,
  'order.disabled': OrderToggledPayload,
} as const;
