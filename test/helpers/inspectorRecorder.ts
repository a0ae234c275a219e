import type { EventObject } from 'xstate';
import type { InspectorTarget } from '../../actors/inspect/actorInspection.ts';

/** An XState-inspector stand-in that records what the hub sends it, one line per call. */
export function recorder(): { target: InspectorTarget; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    target: {
      actor: (id, actor, parent) => calls.push(`actor ${id} ${String(actor.snapshot.value)} under ${parent}`),
      transition: (id, actor, event?: EventObject) =>
        calls.push(
          `transition ${id} ${event?.type ?? '-'} ${String(actor.snapshot.value)} ${actor.snapshot.status}`,
        ),
      stop: () => calls.push('stop'),
    },
  };
}
