import { Type, type Static } from 'typebox';
import type { TypedEventStreamEnvelope, TypedTaggedEventStreamEnvelope } from './eventEnvelopes.ts';
import { named } from './named.ts';

/** Request and response bodies of the event routes. Each `$id` is the OpenAPI component name. */

const nullableArrayOf = <T>(ref: string, description: string) =>
  Type.Unsafe<T[] | null>({ type: ['array', 'null'], items: Type.Ref(ref), description });

export const ListBodyWireEvent = named(
  Type.Object(
    {
      items: nullableArrayOf<TypedEventStreamEnvelope>('WireEvent', 'One page of events, newest first.'),
      total: Type.Integer({
        format: 'int64',
        description: 'Events matching the filters in the whole log (the log head when unfiltered).',
      }),
      next_cursor: Type.Optional(
        Type.String({ description: 'Opaque token for the next (older) page; absent on the last page.' }),
      ),
      partial: Type.Optional(
        Type.Boolean({ description: 'True when a backend failed and the list is incomplete.' }),
      ),
      partial_errors: Type.Optional(
        Type.Union([Type.Array(Type.String()), Type.Null()], {
          description: 'Errors of the failed backends.',
        }),
      ),
    },
    {
      $id: 'ListBodyWireEvent',
      title: 'ListBodyWireEvent',
      description: 'A page of city events.',
      additionalProperties: false,
    },
  ),
);
export type ListBodyWireEvent = Static<typeof ListBodyWireEvent>;

export const SupervisorEventListOutputBody = named(
  Type.Object(
    {
      event_cursor: Type.String({
        description:
          'Composite cursor of exactly the listed snapshot: pass it as after_cursor to /v0/events/stream to get ' +
          'what happened after the list, without gaps or repeats.',
      }),
      items: nullableArrayOf<TypedTaggedEventStreamEnvelope>(
        'WireTaggedEvent',
        'Events of the supervisor and every city, oldest first by ts.',
      ),
      total: Type.Integer({
        format: 'int64',
        description: 'Events matching the filters before `limit` (unfiltered: the sum of every log head).',
      }),
    },
    {
      $id: 'SupervisorEventListOutputBody',
      title: 'SupervisorEventListOutputBody',
      description: 'Events of the whole supervisor, tagged with their city.',
      additionalProperties: false,
    },
  ),
);
export type SupervisorEventListOutputBody = Static<typeof SupervisorEventListOutputBody>;

export const EventEmitRequest = named(
  Type.Object(
    {
      type: Type.String({ minLength: 1, description: 'Event type.' }),
      actor: Type.String({ minLength: 1, description: 'Who emits it.' }),
      subject: Type.Optional(Type.String({ description: 'What it concerns.' })),
      message: Type.Optional(Type.String({ description: 'Free text.' })),
    },
    {
      $id: 'EventEmitRequest',
      title: 'EventEmitRequest',
      description: 'An event to record in a city log (no payload: it is recorded as `{}`).',
      additionalProperties: false,
    },
  ),
);
export type EventEmitRequest = Static<typeof EventEmitRequest>;

export const EventEmitOutputBody = named(
  Type.Object(
    { status: Type.String({ description: 'Always `recorded`.', examples: ['recorded'] }) },
    { $id: 'EventEmitOutputBody', title: 'EventEmitOutputBody', additionalProperties: false },
  ),
);
export type EventEmitOutputBody = Static<typeof EventEmitOutputBody>;
