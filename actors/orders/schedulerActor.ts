import { initialTransition, transition, type AnyMachineSnapshot } from 'xstate';
import type { ActorObserver } from '../runtime/actorObserver.ts';
import { schedulerMachine, type SchedulerEvent } from '../../machines/orders/scheduler.machine.ts';

/**
 * The scheduler machine of one city's orders, run with XState's pure `transition()` and reported to the
 * inspection hub (the live view, the XState inspector) on every move. The orders service sends it each
 * tick's start and end; it decides nothing the service relies on.
 */
export class SchedulerActor {
  readonly machine = schedulerMachine;
  snapshot: AnyMachineSnapshot;

  constructor(
    city: string,
    private readonly observer: ActorObserver,
  ) {
    [this.snapshot] = initialTransition(schedulerMachine, { city });
    observer.created(this);
  }

  send(event: SchedulerEvent): void {
    if (this.snapshot.status !== 'active') return;
    const [next] = transition(schedulerMachine, this.snapshot as never, event);
    if (next === this.snapshot) return;
    this.snapshot = next;
    this.observer.changed(this, event);
  }
}
