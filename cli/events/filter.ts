import { payloadMatches, type PayloadMatcher } from '../payloadMatch.ts';

/** What `gc events` selects on. Filters only choose which objects are printed; they never reshape one. */
export interface EventFilter {
  type?: string | undefined;
  /** Keep events whose `ts` is at or after this instant (epoch ms). */
  sinceEpochMs?: number | undefined;
  matcher: PayloadMatcher;
}

/** An event object as it arrived: only the fields the filters read are typed. */
export type WireEvent = Record<string, unknown> & { seq?: unknown; type?: unknown; ts?: unknown };

/** True when the event passes every filter. Pure. */
export function selected(filter: EventFilter, ev: WireEvent): boolean {
  if (filter.type !== undefined && ev.type !== filter.type) return false;
  if (filter.sinceEpochMs !== undefined) {
    const ts = typeof ev.ts === 'string' ? Date.parse(ev.ts) : NaN;
    if (!(ts >= filter.sinceEpochMs)) return false;
  }
  return payloadMatches(filter.matcher, ev.payload);
}

/**
 * Decodes one event object from JSON text (an SSE `data:` line). Throws `Error('decode: …')` when the text is
 * not a JSON object: the CLI never prints a line it could not read as an event. Pure.
 */
export function decodeEvent(text: string): WireEvent {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new Error(`decode: ${(err as Error).message}: ${text.slice(0, 120)}`, { cause: err });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new Error(`decode: expected a JSON object, got ${text.slice(0, 120)}`);
  }
  return v as WireEvent;
}
