import { Type } from 'typebox';

/**
 * The `include` query parameter of the event lists and streams: the opt-in to the supervisor's bookkeeping
 * events, which upstream never emits and which are otherwise left out (docs/compatibility.md). Blank is
 * absent, as for every other query parameter.
 */
export function includeQueryParameter() {
  return {
    include: Type.Optional(
      Type.String({
        enum: ['internal', ''],
        description:
          '`internal` also serves the supervisor bookkeeping events upstream never emits (`request.accepted`, ' +
          '`supervisor.stopped`); without it they are left out. Hidden events still count in every cursor.',
      }),
    ),
  };
}
