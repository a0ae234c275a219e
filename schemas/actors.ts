import { Type, type Static } from 'typebox';
import { named } from './named.ts';

/** One live actor of the supervisor as the live actor view shows it (ours: upstream has no such view). */
export const ActorEntry = named(
  Type.Object(
    {
      id: Type.String({
        description:
          '`supervisor`, `city:<name>`, `request:<request_id>`, `session:<city>/<session id>`, `agent:<city>/<agent name>` or `scheduler:<city>`.',
      }),
      kind: Type.String({
        description: 'The machine: supervisor, city, request, session, agent or scheduler.',
      }),
      city: Type.Optional(Type.String({ description: 'The city a city or session actor belongs to.' })),
      state: Type.Unknown({
        description: "The state value: a string, or an object for nested states (XState's `snapshot.value`).",
      }),
      status: Type.String({
        description: '`active` while the actor lives; `done` once it reached a final state or went away.',
      }),
      context: Type.Record(Type.String(), Type.Unknown(), {
        description:
          'A summary of the context: scalars as they are, strings cut at 120 characters, collections by size.',
      }),
    },
    { additionalProperties: false, title: 'ActorEntry', $id: 'ActorEntry' },
  ),
);
export type ActorEntry = Static<typeof ActorEntry>;

/** `GET /v0/actors`. */
export const ActorListBody = named(
  Type.Object(
    { items: Type.Array(Type.Ref('ActorEntry')), total: Type.Integer() },
    { additionalProperties: false, title: 'ActorListBody', $id: 'ActorListBody' },
  ),
);
export type ActorListBody = { items: ActorEntry[]; total: number };
