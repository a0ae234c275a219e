import { SUPERVISOR_LOG, type JournalEvent } from '../journal/journal.ts';
import { OUR_EVENT_TYPES } from '../../../schemas/eventCatalog.ts';

/**
 * Which recorded events the event routes serve. The supervisor keeps bookkeeping records upstream never
 * emits; a client that validates events against the closed union of upstream's types would reject a whole
 * list or stream because of one of them, so they stay in the log but are served only to a client that asks
 * for them (`include=internal`). Hiding an event never moves a position: cursors, `X-GC-Index` and stream
 * ids still count it.
 */

/** Whether an event of `log` is served on the wire. */
export type EventFilter = (log: string, event: JournalEvent) => boolean;

/**
 * Every type we record that upstream's catalog lacks (our part of the catalogue): the durable acceptance of
 * an async request (on the supervisor log for cities, on a city's log for its sessions), and the clean-stop
 * marker `supervisor.started.previous_exit` is derived from, and the families' own (registerFamilyEvents).
 */
export const INTERNAL_EVENT_TYPES: ReadonlySet<string> = OUR_EVENT_TYPES;

/**
 * True for the supervisor's own bookkeeping: an internal type on `__supervisor__`, which only the
 * supervisor writes; on a city log, an internal type that carries a payload. A user's custom event (the
 * emit route) never has a payload, so whatever its name it is never internal. Pure.
 */
export const isInternalEvent = (log: string, event: Pick<JournalEvent, 'type' | 'payload'>): boolean =>
  INTERNAL_EVENT_TYPES.has(event.type) && (log === SUPERVISOR_LOG || event.payload !== undefined);

const everything: EventFilter = () => true;
const withoutInternal: EventFilter = (log, event) => !isInternalEvent(log, event);

/** The events a request with this `include` value is served: internal ones only with `internal`. Pure. */
export const servedEvents = (include: string | undefined): EventFilter =>
  include === 'internal' ? everything : withoutInternal;
