import type { EventObject } from 'xstate';
import type { ActorObserver, ObservedActor } from '../runtime/actorObserver.ts';

/** The XState inspector's side of inspection (`statelyInspector.ts` adapts `@statelyai/inspect`). */
export interface InspectorTarget {
  /** A new actor: its id, its machine's config (the inspector draws it) and its first snapshot. */
  actor(id: string, actor: ObservedActor, parentId: string | undefined): void;
  /** A committed transition: the event decided and the snapshot it led to. */
  transition(id: string, actor: ObservedActor, event: EventObject | undefined): void;
  /**
   * Given, once attached, the function that announces every live actor again with its current snapshot: a
   * target with a connection calls it on each (re)connect, so the peer sees the actors as they are now.
   */
  connected?(announce: () => void): void;
  stop(): void;
}

/** One machine actor as the hub knows it. */
export interface MachineActorEntry {
  /**
   * `supervisor`, `city:<name>`, `request:<request_id>`, `session:<city>/<id>`, `agent:<city>/<name>`,
   * `scheduler:<city>`, or `<machine id>:<n>`.
   */
  readonly id: string;
  /** The machine's id: `supervisor`, `city`, `request`, … */
  readonly kind: string;
  readonly actor: ObservedActor;
}

/** Why a listener is called: an actor appeared, took a transition, or ended (reached a final state). */
export type MachineActorChange = { readonly entry: MachineActorEntry; readonly ended: boolean };

const SUPERVISOR_ID = 'supervisor';

/** The id an actor is listed under, from its machine and context. Pure. */
export function machineActorId(actor: ObservedActor, fallback: () => string): string {
  const kind = actor.machine.id;
  const context = actor.snapshot.context as Record<string, unknown> | undefined;
  if (kind === 'supervisor') return SUPERVISOR_ID;
  if (kind === 'city' && typeof context?.['name'] === 'string') return `city:${context['name']}`;
  if (kind === 'request' && typeof context?.['request_id'] === 'string') {
    return `request:${context['request_id']}`;
  }
  if (kind === 'session' && typeof context?.['city'] === 'string' && typeof context['id'] === 'string') {
    return `session:${context['city']}/${context['id']}`;
  }
  if (kind === 'agent' && typeof context?.['city'] === 'string' && typeof context['name'] === 'string') {
    return `agent:${context['city']}/${context['name']}`;
  }
  // One per city: named after it.
  if (kind === 'scheduler' && typeof context?.['city'] === 'string') return `scheduler:${context['city']}`;
  return `${kind}:${fallback()}`;
}

/** The machines whose actors belong to one city (their context names it). */
const CITY_OWN = new Set(['session', 'agent', 'scheduler']);

/**
 * Where an actor hangs in the inspector's tree: a city's own actors (sessions, agents, its scheduler) under
 * the city, the rest under the supervisor.
 */
function parentOf(id: string, actor: ObservedActor): string | undefined {
  if (id === SUPERVISOR_ID) return undefined;
  const city = (actor.snapshot.context as Record<string, unknown> | undefined)?.['city'];
  return CITY_OWN.has(actor.machine.id) && typeof city === 'string' ? `city:${city}` : SUPERVISOR_ID;
}

/**
 * The supervisor's actor inspection hub: every journaled actor reports here when created and when it
 * commits. It keeps the live ones (an actor leaves when it reaches a final state, or when one with the same
 * id replaces it) and forwards to whoever watches: live-view subscribers and, with `--inspect`, the XState
 * inspector. With neither, a commit costs one property read and two size checks: nothing is built.
 */
export class ActorInspection implements ActorObserver {
  readonly #live = new Map<string, MachineActorEntry>();
  readonly #ids = new WeakMap<ObservedActor, string>();
  readonly #listeners = new Set<(change: MachineActorChange) => void>();
  #target: InspectorTarget | undefined;
  #next = 0;

  created(actor: ObservedActor): void {
    const id = machineActorId(actor, () => String(++this.#next));
    this.#ids.set(actor, id);
    const entry = { id, kind: actor.machine.id, actor };
    this.#live.set(id, entry);
    this.#target?.actor(id, actor, parentOf(id, actor));
    if (this.#listeners.size > 0) this.#emit({ entry, ended: false });
  }

  changed(actor: ObservedActor, event: EventObject | undefined): void {
    const ended = actor.snapshot.status !== 'active';
    if (!ended && this.#listeners.size === 0 && this.#target === undefined) return;
    const id = this.#ids.get(actor);
    if (id === undefined) return;
    const entry = this.#live.get(id);
    // A replaced actor (a city opened again under its name) no longer speaks for its id.
    if (entry?.actor !== actor) return;
    if (ended) this.#live.delete(id);
    this.#target?.transition(id, actor, event);
    if (this.#listeners.size > 0) this.#emit({ entry, ended });
  }

  /** The live machine actors, in creation order. */
  list(): MachineActorEntry[] {
    return [...this.#live.values()];
  }

  /** Calls `listener` on every change from now on; returns the function that stops it. */
  subscribe(listener: (change: MachineActorChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** How many live-view subscribers there are (tests prove a closed view leaves none). */
  get watchers(): number {
    return this.#listeners.size;
  }

  /**
   * Forwards to the XState inspector from now on; the live actors are announced to it at once, and again
   * whenever it says it (re)connected.
   */
  attachInspector(target: InspectorTarget): void {
    this.#target = target;
    target.connected?.(() => {
      if (this.#target === target) this.#announce(target);
    });
    this.#announce(target);
  }

  #announce(target: InspectorTarget): void {
    for (const entry of this.#live.values()) {
      target.actor(entry.id, entry.actor, parentOf(entry.id, entry.actor));
    }
  }

  /** Stops forwarding to the XState inspector and closes its connection. */
  detachInspector(): void {
    this.#target?.stop();
    this.#target = undefined;
  }

  #emit(change: MachineActorChange): void {
    for (const listener of this.#listeners) listener(change);
  }
}
