/**
 * Compile-time test of the typed drafts: `npm run typecheck` checks this file, and every
 * `@ts-expect-error` line must be an error there (tsc reports an unused one), so an unknown type or a
 * wrong payload compiling again fails the typecheck. Nothing here runs.
 */
import type { CustomEventDraft, EventDraft } from '../../schemas/event.ts';
import { recordOf } from '../../machines/recorded.ts';
import type { Decision } from '../../machines/beads/decision.ts';

// The catalogue's own drafts compile, upstream's types and ours alike.
export const created: EventDraft = { type: 'city.created', actor: 'gc', payload: { name: 'a', path: '/a' } };
export const accepted: EventDraft<'request.accepted'> = {
  type: 'request.accepted',
  actor: 'api',
  payload: { request_id: 'r1', operation: 'city.create', name: 'a', path: '/a' },
};
export const stopped = recordOf({ type: 'supervisor.stopped', actor: 'gc', payload: {} });

// @ts-expect-error an unknown type is not a draft
export const unknownType: EventDraft = { type: 'city.exploded', actor: 'gc', payload: {} };

// @ts-expect-error an unknown type cannot be recorded by a machine
export const unknownRecord = recordOf({ type: 'nope', actor: 'gc', payload: {} });

// @ts-expect-error the payload lacks `path`
export const missingField: EventDraft = { type: 'city.created', actor: 'gc', payload: { name: 'a' } };

const badOperation = { request_id: 'r1', operation: 'city.explode', name: 'a', path: '/a' } as const;
// @ts-expect-error `operation` must be one of the request operations
export const wrongFieldType = recordOf({ type: 'request.accepted', actor: 'api', payload: badOperation });

export const foreignField = recordOf({
  type: 'supervisor.started',
  actor: 'gc',
  // @ts-expect-error a closed payload takes no other field
  payload: { previous_exit: 'clean', extra: 1 },
});

// @ts-expect-error a catalogue draft needs its payload
export const noPayload: EventDraft<'city.created'> = { type: 'city.created', actor: 'gc' };

// A bead command's decision carries typed drafts too.
export const decision: Decision<null> = {
  result: null,
  // @ts-expect-error a bead event's payload is `{bead}`
  event: { type: 'bead.created', actor: 'x', payload: { id: 'gc-1' } },
  notices: [],
};

// A user's custom event (the emit route) may have any type, and no payload.
export const custom: CustomEventDraft = { type: 'anything.at.all', actor: 'me' };
// @ts-expect-error a custom draft carries no payload
export const customWithPayload: CustomEventDraft = { type: 'x', actor: 'me', payload: {} };
