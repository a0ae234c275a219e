import { SUPERVISOR_LOG, type JournalEvent } from '../journal/journal.ts';
import { REQUEST_ACCEPTED } from '../../machines/request.machine.ts';

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
 * Every type we record that upstream's catalog lacks, all on `__supervisor__`: the durable acceptance of an
 * async request, and the clean-stop marker `supervisor.started.previous_exit` is derived from.
 */
export const INTERNAL_EVENT_TYPES: ReadonlySet<string> = new Set([REQUEST_ACCEPTED, 'supervisor.stopped']);

/**
 * True for the supervisor's own bookkeeping: an internal type on `__supervisor__`. Only the supervisor
 * writes that log (emitted events go to city logs), so a custom event a user emitted, whatever its name,
 * is never internal. Pure.
 */
export const isInternalEvent = (log: string, type: string): boolean =>
  log === SUPERVISOR_LOG && INTERNAL_EVENT_TYPES.has(type);

const everything: EventFilter = () => true;
const withoutInternal: EventFilter = (log, event) => !isInternalEvent(log, event.type);

/** The events a request with this `include` value is served: internal ones only with `internal`. Pure. */
export const servedEvents = (include: string | undefined): EventFilter =>
  include === 'internal' ? everything : withoutInternal;
