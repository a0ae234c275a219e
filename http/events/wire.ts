import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import {
  EVENT_PAYLOADS,
  PAYLOAD_REFS,
  isRegisteredEventType,
  type RegisteredEventType,
} from '../../schemas/eventCatalog.ts';
import { withoutCauses } from '../../schemas/eventCauses.ts';
import type { TaggedEventStreamEnvelope, EventStreamEnvelope } from '../../schemas/eventEnvelopes.ts';

/**
 * The projection of journal events onto the wire envelopes, shared by the lists and the streams so both
 * always say the same thing about an event.
 */

type Checker = { Check(value: unknown): boolean };
const checkers = new Map<RegisteredEventType, Checker>();

function checkerFor(type: RegisteredEventType): Checker {
  let checker = checkers.get(type);
  if (!checker) checkers.set(type, (checker = Compile(PAYLOAD_REFS, EVENT_PAYLOADS[type])));
  return checker;
}

/**
 * The payload an event carries on the wire. Absent → `{}`. A registered type's payload that does not match
 * its schema is normalised the way upstream's typed decode does it (unknown fields dropped, missing ones
 * zero-valued), so every frame validates against the typed envelopes; a custom type's payload passes
 * through unchanged. Pure (compiled validators are cached).
 */
export function wirePayload(type: string, payload: unknown): unknown {
  // Recorded causes (schemas/eventCauses.ts) are the merge's business, never the client's.
  const value = payload === undefined ? {} : withoutCauses(payload);
  if (!isRegisteredEventType(type)) return value;
  if (checkerFor(type).Check(value)) return value;
  try {
    return Value.Repair(PAYLOAD_REFS, EVENT_PAYLOADS[type], value);
  } catch {
    // Repair cannot invent every value; delivering the event as recorded beats dropping it.
    return value;
  }
}

/** A journal event as a city-scope envelope, fields in upstream's order, empty strings omitted. Pure. */
export function toWireEvent(event: JournalEvent): EventStreamEnvelope {
  return {
    seq: event.seq,
    type: event.type,
    ts: event.ts,
    actor: event.actor,
    ...(event.subject ? { subject: event.subject } : {}),
    ...(event.message ? { message: event.message } : {}),
    payload: wirePayload(event.type, event.payload),
  };
}

/** Supervisor request results whose `city` is the city they concern, not their source log. */
const CITY_RESULT_TYPES = new Set([
  'request.result.city.create',
  'request.result.city.unregister',
  'request.failed',
]);

/**
 * The `city` of a supervisor-scope event: its source log's name, except request results and failures the
 * supervisor records about a city, which name that city (the subject, else `payload.name`). The cursor key
 * of such an event stays the source log. Pure.
 */
export function wireCity(source: string, event: JournalEvent): string {
  if (source !== SUPERVISOR_LOG || !CITY_RESULT_TYPES.has(event.type)) return source;
  if (event.subject) return event.subject;
  const name = (event.payload as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' && name !== '' ? name : source;
}

/** A journal event of log `source` as a supervisor-scope envelope. Pure. */
export function toTaggedWireEvent(event: JournalEvent, source: string): TaggedEventStreamEnvelope {
  return { ...toWireEvent(event), city: wireCity(source, event) };
}
