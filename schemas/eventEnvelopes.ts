import { Type, type Static } from 'typebox';
import {
  EVENT_PAYLOADS,
  PAYLOAD_SCHEMAS,
  REGISTERED_EVENT_TYPES,
  variantSuffix,
  type RegisteredEventType,
} from './eventCatalog.ts';
import { named, type NamedSchema } from './named.ts';
import { WorkflowEventProjectionSchema } from './workflowProjection.ts';

/**
 * The event envelopes on the wire: `data:` of the SSE frames and the items of the event lists. The untyped
 * envelopes (EventStreamEnvelope, TaggedEventStreamEnvelope) describe every frame; the typed unions
 * (TypedEventStreamEnvelope, TypedTaggedEventStreamEnvelope) pin each registered `type` to its payload
 * schema, with a Custom variant for any other type. `payload` is always present (`{}` when the event has
 * none). Each schema's `$id` is its OpenAPI component name.
 */

const envelopeFields = () => ({
  seq: Type.Integer({ format: 'int64', minimum: 0, description: 'Position in the source log (1-based).' }),
  type: Type.String({ description: 'Semantic event kind, e.g. bead.created.' }),
  ts: Type.String({ format: 'date-time', description: 'When it was recorded (RFC 3339).' }),
  actor: Type.String({ description: 'Who caused it.' }),
  subject: Type.Optional(Type.String({ description: 'What it concerns (omitted when empty).' })),
  message: Type.Optional(Type.String({ description: 'Free text (omitted when empty).' })),
  workflow: Type.Optional(WorkflowEventProjectionSchema),
});

const cityField = () =>
  Type.String({
    description:
      'The city the event belongs to: its source log, or for supervisor request results the city concerned.',
  });

/**
 * Upstream's EventPayload: one of the registered payload schemas (the typed envelopes say which, by
 * `type`). A custom event's payload is whatever was emitted, which this union, as upstream's, does not
 * describe; the static type stays unknown for that reason.
 */
const anyPayload = () =>
  Type.Unsafe<unknown>({
    anyOf: PAYLOAD_SCHEMAS.map((schema) => ({ $ref: schema.$id })),
    description: 'Kind-specific body; `{}` when the event has none. See the typed envelopes.',
  });

export const EventStreamEnvelope = named(
  Type.Object(
    { ...envelopeFields(), payload: anyPayload() },
    {
      $id: 'EventStreamEnvelope',
      title: 'EventStreamEnvelope',
      description: 'One city event: the data of an `event: event` SSE frame.',
      additionalProperties: false,
    },
  ),
);
/** A city-scope event as it goes on the wire. */
export type EventStreamEnvelope = Static<typeof EventStreamEnvelope>;

export const TaggedEventStreamEnvelope = named(
  Type.Object(
    { ...envelopeFields(), payload: anyPayload(), city: cityField() },
    {
      $id: 'TaggedEventStreamEnvelope',
      title: 'TaggedEventStreamEnvelope',
      description: 'One supervisor-scope event: the data of an `event: tagged_event` SSE frame.',
      additionalProperties: false,
    },
  ),
);
/** A supervisor-scope event as it goes on the wire: a city event plus `city`. */
export type TaggedEventStreamEnvelope = Static<typeof TaggedEventStreamEnvelope>;

export const HeartbeatEvent = named(
  Type.Object(
    { timestamp: Type.String({ description: 'When the heartbeat was sent (RFC 3339, UTC, seconds).' }) },
    {
      $id: 'HeartbeatEvent',
      title: 'HeartbeatEvent',
      description: 'The data of an `event: heartbeat` SSE frame; such frames carry no `id:`.',
      additionalProperties: false,
    },
  ),
);
export type HeartbeatEvent = Static<typeof HeartbeatEvent>;

type Payloads = typeof EVENT_PAYLOADS;
type Base = Omit<EventStreamEnvelope, 'payload' | 'type'>;
type TypedOf<K extends RegisteredEventType> = Base & { type: K; payload: Static<Payloads[K]> };

/** A city event whose payload matches its type (the list item and `gc events` list line). */
export type TypedEventStreamEnvelope =
  | { [K in RegisteredEventType]: TypedOf<K> }[RegisteredEventType]
  | (Base & { type: string; payload: unknown });
/** A supervisor event whose payload matches its type. */
export type TypedTaggedEventStreamEnvelope = TypedEventStreamEnvelope & { city: string };

const union = (tagged: boolean) => (tagged ? 'TypedTaggedEventStreamEnvelope' : 'TypedEventStreamEnvelope');

function variant(tagged: boolean, type: RegisteredEventType): NamedSchema {
  const id = `${union(tagged)}${variantSuffix(type)}`;
  return named(
    Type.Object(
      {
        ...envelopeFields(),
        type: Type.Literal(type),
        payload: Type.Ref(EVENT_PAYLOADS[type].$id),
        ...(tagged ? { city: cityField() } : {}),
      },
      { $id: id, title: `${union(tagged)} ${type}`, additionalProperties: false },
    ),
  );
}

function customVariant(tagged: boolean): NamedSchema {
  const id = `${union(tagged)}Custom`;
  return named(
    Type.Object(
      {
        ...envelopeFields(),
        type: Type.Unsafe<string>({
          type: 'string',
          not: { enum: REGISTERED_EVENT_TYPES },
          // Said here because generated clients show it: a discriminator has no "any other value" entry, so
          // openapi-typescript types this as the variant's name, which keeps `switch (e.type)` narrowing.
          description:
            'Any type that is not registered. Client generators that follow the discriminator (openapi-typescript) ' +
            `type it as the placeholder "${id}"; compare custom types as plain strings.`,
        }),
        payload: Type.Unknown({ description: 'Any JSON, passed through as recorded (`{}` when absent).' }),
        ...(tagged ? { city: cityField() } : {}),
      },
      { $id: id, title: `${union(tagged)} custom`, additionalProperties: false },
    ),
  );
}

function typedUnion<T>(tagged: boolean, description: string) {
  const variants = REGISTERED_EVENT_TYPES.map((type) => variant(tagged, type));
  const custom = customVariant(tagged);
  const mapping = Object.fromEntries(
    REGISTERED_EVENT_TYPES.map((type, i) => [type, `#/components/schemas/${variants[i]!.$id}`]),
  );
  const schema = named(
    Type.Unsafe<T>({
      $id: union(tagged),
      title: union(tagged),
      description,
      oneOf: [...variants, custom].map((v) => Type.Ref(v.$id)),
      discriminator: { propertyName: 'type', mapping },
    }),
  );
  return { schema, variants: [...variants, custom] };
}

const city = typedUnion<TypedEventStreamEnvelope>(
  false,
  'A city event, discriminated by `type`: each registered type fixes its payload schema; other types are Custom.',
);
const supervisor = typedUnion<TypedTaggedEventStreamEnvelope>(
  true,
  'A supervisor event, discriminated by `type` like TypedEventStreamEnvelope, plus the city it belongs to.',
);

export const TypedEventStreamEnvelope = city.schema;
export const TypedTaggedEventStreamEnvelope = supervisor.schema;
/** The 70 variants of each typed union (components of their own, referenced from the unions). */
export const TYPED_VARIANTS: readonly NamedSchema[] = [...city.variants, ...supervisor.variants];

/*
 * The list item names (spec 2.5) are plain aliases of the typed unions: a bare `$ref`. An `allOf: [$ref]`
 * wrapper reads to client generators as a subtype of the discriminated union: openapi-typescript then pins
 * `type` to the alias's own name ("WireEvent") and loses the per-type payloads. (@fastify/swagger drops any
 * annotation beside a `$ref`, so the aliases carry none.)
 */
const alias = <T>(id: string, target: string) => named(Type.Unsafe<T>({ $id: id, $ref: target }));

/** A city event as the city event list returns it: TypedEventStreamEnvelope. */
export const WireEvent = alias<TypedEventStreamEnvelope>('WireEvent', 'TypedEventStreamEnvelope');
/** A supervisor event as the supervisor event list returns it: TypedTaggedEventStreamEnvelope. */
export const WireTaggedEvent = alias<TypedTaggedEventStreamEnvelope>(
  'WireTaggedEvent',
  'TypedTaggedEventStreamEnvelope',
);
