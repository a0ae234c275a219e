import type { ObservedActor } from '../runtime/actorObserver.ts';
import type { InspectorTarget } from './actorInspection.ts';

const inspected = (actor: ObservedActor) => ({
  status: actor.snapshot.status,
  value: actor.snapshot.value as unknown,
  context: actor.snapshot.context as unknown,
});

/**
 * Connects to an XState inspector over WebSocket (`@statelyai/inspect`'s `createWebSocketInspector`, e.g.
 * the bridge `createInspectorServer()` serves on ws://localhost:8080 for Stately's inspector) and adapts it
 * to the hub. Our actors run XState's pure `transition()` on a journal instead of `createActor`, so the
 * inspection events are sent through the inspector's manual API: `actor` (with the machine's config, so
 * the inspector draws the machine), then `event` and `snapshot` for each committed transition.
 * The package is loaded here, only when inspection is asked for. The socket reconnects by itself (every
 * 5 s) and holds the newest 200 inspection events while the inspector is away.
 */
export async function connectStatelyInspector(url: string): Promise<InspectorTarget> {
  const { createWebSocketInspector } = await import('@statelyai/inspect');
  const inspector = createWebSocketInspector({ url });
  const refs = new Map<string, { sessionId: string; logic: { config: unknown }; _parent?: unknown }>();
  const refOf = (id: string, actor: ObservedActor, parentId?: string) => {
    let ref = refs.get(id);
    if (!ref || ref.logic.config !== actor.machine.config) {
      const parent = parentId === undefined ? undefined : refs.get(parentId);
      ref = {
        sessionId: id,
        logic: { config: actor.machine.config },
        ...(parent ? { _parent: parent } : {}),
      };
      refs.set(id, ref);
    }
    return ref;
  };
  return {
    actor(id, actor, parentId) {
      // The manual API reads the definition from `logic.config` and the tree from `_parent`, as XState's refs.
      inspector.actor(refOf(id, actor, parentId) as never, inspected(actor));
    },
    transition(id, actor, event) {
      const ref = refOf(id, actor);
      if (event) inspector.event(ref as never, event);
      inspector.snapshot(ref as never, inspected(actor), event ? { event: event } : {});
      if (actor.snapshot.status !== 'active') refs.delete(id);
    },
    stop() {
      inspector.stop();
    },
  };
}
