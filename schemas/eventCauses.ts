/**
 * The heads of other logs an event follows from, stored in its payload under {@link CAUSES_KEY}: the
 * supervisor records them with a request's terminal event (the city's `city.created` … `controller.started`
 * come before `request.result.city.create`), and the merged supervisor stream holds the event until they are
 * delivered. Stored only: the wire projection and the payload decoders never see the key, so it is no part
 * of any payload schema or of the OpenAPI document.
 */
export const CAUSES_KEY = 'after_heads';

/** Log name → the seq that must be delivered before the event. */
export type CausalHeads = Readonly<Record<string, number>>;

/** `payload` with `heads` recorded (unchanged when there are none). Pure. */
export function withCauses<P extends object>(payload: P, heads: CausalHeads | undefined): P {
  if (!heads || Object.keys(heads).length === 0) return payload;
  return { ...payload, [CAUSES_KEY]: heads };
}

/** `payload` without recorded causes (the same object when it has none). Pure. */
export function withoutCauses(payload: unknown): unknown {
  if (typeof payload !== 'object' || payload === null || !Object.hasOwn(payload, CAUSES_KEY)) return payload;
  const { [CAUSES_KEY]: _causes, ...rest } = payload as Record<string, unknown>;
  return rest;
}
