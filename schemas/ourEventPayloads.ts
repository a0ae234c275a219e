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

/**
 * `agent.config_changed`: an `[[agent]]` of the city's `city.toml` was added, edited or removed through
 * the API (the file was rewritten first; this record makes the change durable and tells subscribers).
 */
export const AgentConfigChangedPayload = named(
  Type.Object(
    {
      write_id: Type.String({ minLength: 1 }),
      op: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted')]),
      agent: Type.String({ minLength: 1 }),
      config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      sha256: Type.Optional(Type.String({ description: "The new city.toml's sha256 (hex)." })),
    },
    { $id: 'AgentConfigChangedPayload', additionalProperties: false },
  ),
);
export type AgentConfigChangedPayload = Static<typeof AgentConfigChangedPayload>;
