/**
 * A city's order scheduler as an XState machine, for the inspector and the live actor view: `idle`
 * between ticks, `ticking` while a tick decides and writes its firings, `stopped` (final) with the city.
 * Its context is what a watcher asks of a scheduler: how many orders, the last tick and what it fired.
 * No effects: the orders service runs the ticks and sends the events.
 */
import { assign, setup } from 'xstate';

export interface SchedulerContext {
  city: string;
  orders: number;
  ticks: number;
  last_tick?: string;
  last_fired?: number;
  last_error?: string;
}

export type SchedulerEvent =
  | { type: 'TICK'; at: string; orders: number }
  | { type: 'TICKED'; fired: number }
  | { type: 'TICK_FAILED'; error: string }
  | { type: 'STOP' };

export const schedulerMachine = setup({
  types: { context: {} as SchedulerContext, events: {} as SchedulerEvent, input: {} as { city: string } },
}).createMachine({
  id: 'scheduler',
  initial: 'idle',
  context: ({ input }) => ({ city: input.city, orders: 0, ticks: 0 }),
  states: {
    idle: {
      on: {
        TICK: {
          target: 'ticking',
          actions: assign(({ context, event }) => ({
            orders: event.orders,
            ticks: context.ticks + 1,
            last_tick: event.at,
          })),
        },
        STOP: 'stopped',
      },
    },
    ticking: {
      on: {
        TICKED: { target: 'idle', actions: assign(({ event }) => ({ last_fired: event.fired })) },
        TICK_FAILED: { target: 'idle', actions: assign(({ event }) => ({ last_error: event.error })) },
        STOP: 'stopped',
      },
    },
    stopped: { type: 'final' },
  },
});
