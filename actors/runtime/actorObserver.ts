import type { AnyMachineSnapshot, AnyStateMachine, EventObject } from 'xstate';

/** What an observer sees of a machine actor: its machine and its committed snapshot. */
export interface ObservedActor {
  readonly machine: AnyStateMachine;
  readonly snapshot: AnyMachineSnapshot;
}

/**
 * Told about every machine actor an actor system creates and every snapshot it commits (the live actor
 * view and the XState inspector listen through it). Called synchronously on the actor's own path, so an
 * implementation must return at once when nobody watches: inspection costs nothing unless someone looks.
 */
export interface ActorObserver {
  created(actor: ObservedActor): void;
  /** After a committed transition (`event` is what was decided) or a fold of recorded events. */
  changed(actor: ObservedActor, event: EventObject | undefined): void;
}
