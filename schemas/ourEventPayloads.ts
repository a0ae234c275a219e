import { Type, type Static } from 'typebox';
import { named } from './named.ts';

/**
 * Payloads of the bookkeeping events we record and upstream never does (docs/compatibility.md). They are
 * typed like upstream's, but they are not part of upstream's catalogue: no wire envelope variant, no
 * OpenAPI component.
 */

/** `request.accepted`: an async request made durable on `__supervisor__`; replay rebuilds it from this. */
export const RequestAcceptedPayload = named(
  Type.Object(
    {
      request_id: Type.String({ minLength: 1 }),
      operation: Type.Union([Type.Literal('city.create'), Type.Literal('city.unregister')]),
      name: Type.String(),
      path: Type.String(),
    },
    { $id: 'RequestAcceptedPayload', additionalProperties: false },
  ),
);
export type RequestAcceptedPayload = Static<typeof RequestAcceptedPayload>;

/** `supervisor.stopped`: the clean-stop marker, without a body. */
export const SupervisorStoppedPayload = named(
  Type.Object({}, { $id: 'SupervisorStoppedPayload', additionalProperties: false }),
);
