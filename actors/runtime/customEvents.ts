import { CITY_FOLDED_TYPES } from '../../machines/city.machine.ts';
import { isBeadStateEvent } from '../../machines/beads/events.ts';
import type { CustomEventDraft } from '../../schemas/event.ts';
import type { EventEmitRequest } from '../../schemas/eventBodies.ts';
import { ValidationError } from './errors.ts';

/**
 * The draft of a user's custom event (the emit-event route): any type, no payload. A type a city log's
 * folds read (the city lifecycle, `bead.*` state) is refused: the record would either forge state, or, with
 * no payload, be a damaged record that stops the next replay (docs/compatibility.md). Pure.
 * @throws ValidationError (422, `invalid:`) for such a type; nothing is recorded.
 */
export function customEventDraft(body: EventEmitRequest): CustomEventDraft {
  const { type, actor, subject, message } = body;
  if (CITY_FOLDED_TYPES.has(type) || isBeadStateEvent(type)) {
    const why = `type ${type} is city state the supervisor records itself; emit a custom type instead`;
    throw new ValidationError(why, 'invalid', {
      errors: [{ location: 'body.type', message: why, value: type }],
    });
  }
  return { type, actor, ...(subject ? { subject } : {}), ...(message ? { message } : {}) };
}
