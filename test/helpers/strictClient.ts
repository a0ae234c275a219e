import { Compile } from 'typebox/compile';
import { EVENT_PAYLOADS, PAYLOAD_REFS, isRegisteredEventType } from '../../schemas/eventCatalog.ts';

/**
 * What a strict client (upstream's own dashboard) checks of every event it reads: its `type` is one of the
 * 69 types of upstream's catalog (a closed union, no custom variant) and its payload is that type's payload.
 * Returns one line per event that such a client rejects (empty when it accepts them all).
 */
export function strictRejections(events: ReadonlyArray<{ type?: unknown; payload?: unknown }>): string[] {
  const out: string[] = [];
  for (const [i, e] of events.entries()) {
    const type = String(e.type);
    if (!isRegisteredEventType(type)) out.push(`#${i}: ${type} is not an upstream event type`);
    else if (!Compile(PAYLOAD_REFS, EVENT_PAYLOADS[type]).Check(e.payload))
      out.push(`#${i}: ${type} payload does not match`);
  }
  return out;
}
