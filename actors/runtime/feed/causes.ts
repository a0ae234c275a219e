import { SUPERVISOR_LOG, type JournalEvent } from '../journal/journal.ts';

/**
 * The payload key under which a supervisor event records the heads of the city logs it follows from (a
 * request's terminal event: the city's `city.created` … `controller.started` come before it). Stored with
 * the event, never served: the wire projection drops it (http/events/wire.ts).
 */
export const CAUSES_KEY = 'after_heads';

/** The causes an event of `log` records, as log → seq; undefined when it records none. Pure. */
export function causesOf(
  log: string,
  event: JournalEvent,
): ReadonlyArray<readonly [string, number]> | undefined {
  if (log !== SUPERVISOR_LOG || typeof event.payload !== 'object' || event.payload === null) return undefined;
  const heads = (event.payload as Record<string, unknown>)[CAUSES_KEY];
  if (typeof heads !== 'object' || heads === null) return undefined;
  const out: Array<[string, number]> = [];
  for (const [name, seq] of Object.entries(heads))
    if (typeof seq === 'number' && seq > 0) out.push([name, seq]);
  return out.length > 0 ? out : undefined;
}

/**
 * Whether every cause is delivered: its log is past the cause's seq, or its log is not read at all (a city
 * that left, whose events this reader can no longer get; holding would only stall the stream). Pure.
 */
export function causesMet(
  causes: ReadonlyArray<readonly [string, number]>,
  position: (log: string) => number | undefined,
): boolean {
  for (const [name, seq] of causes) {
    const at = position(name);
    if (at !== undefined && at < seq) return false;
  }
  return true;
}
