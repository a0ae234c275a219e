import type { ObservedActor } from '../runtime/actorObserver.ts';
import { defaultLogger, type Logger } from '../runtime/logger.ts';
import type { InspectorTarget } from './actorInspection.ts';
import { InspectorSocket } from './inspectorSocket.ts';

const inspected = (actor: ObservedActor) => ({
  status: actor.snapshot.status,
  value: actor.snapshot.value as unknown,
  context: actor.snapshot.context as unknown,
});

export interface StatelyInspectorOptions {
  /** Where "down" and "back" are said (default: the supervisor's logger). */
  logger?: Logger;
  /** Reconnect back-off bounds (InspectorSocket's defaults: 250 ms doubling to 10 s). */
  minDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Connects to an XState inspector over WebSocket (e.g. the bridge `@statelyai/inspect/server`'s
 * `createInspectorServer()` serves on ws://localhost:8080 for Stately's inspector) and adapts it to the
 * hub. Our actors run XState's pure `transition()` on a journal instead of `createActor`, so the
 * inspection events are built by `@statelyai/inspect`'s `createInspector` (its manual API: `actor` with
 * the machine's config, so the inspector draws the machine, then `event` and `snapshot` for each committed
 * transition) and sent over our own socket (inspectorSocket.ts), not the package's, which retries only
 * until its first connection: ours reconnects after any drop with a bounded back-off and, on every open,
 * has the hub announce every live actor with its current snapshot, so a restarted inspector sees the whole
 * tree as it is now. The package is loaded here, only when inspection is asked for.
 */
export async function connectStatelyInspector(
  url: string,
  options: StatelyInspectorOptions = {},
): Promise<InspectorTarget> {
  const { createInspector } = await import('@statelyai/inspect');
  let replay: (() => void) | undefined;
  const socket = new InspectorSocket({
    url,
    logger: options.logger ?? defaultLogger(),
    ...(options.minDelayMs === undefined ? {} : { minDelayMs: options.minDelayMs }),
    ...(options.maxDelayMs === undefined ? {} : { maxDelayMs: options.maxDelayMs }),
    onOpen: () => replay?.(),
  });
  const inspector = createInspector(
    {
      start: () => socket.start(),
      stop: () => socket.stop(),
      send: (event) => {
        if (!socket.open) return;
        try {
          socket.send(JSON.stringify(event));
        } catch {
          // A snapshot that cannot be serialised is not worth the connection.
        }
      },
    },
    { autoStart: false },
  );
  inspector.start();
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
    connected(announce) {
      replay = announce;
    },
    stop() {
      inspector.stop();
    },
  };
}
