import { assign, emit, setup } from 'xstate';
import { payloadAs } from '../schemas/eventDecode.ts';
import { recordOf, type Recorded, type RecordEvent } from './recorded.ts';

export interface CityInput {
  name: string;
  path: string;
}

export interface CityContext extends CityInput {
  suspended: boolean;
  /** Startup phases finished in the current start attempt (upstream's phases_completed). */
  phasesCompleted: string[];
  /** Why the last start (or unregister stop) failed. */
  error?: string;
  /** When the controller came up (from the STARTED event: machines never read the clock). */
  startedAt?: string;
  /** True between STARTED and STOPPED: whether stopping has a controller to record as stopped. */
  controllerUp: boolean;
}

export type CityEvent =
  | { type: 'REGISTER' }
  | { type: 'START' }
  | { type: 'PHASE_COMPLETED'; phase: string }
  | { type: 'STARTED'; at: string }
  | { type: 'START_FAILED'; error: string }
  | { type: 'STOP' }
  | { type: 'STOPPED'; error?: string }
  | { type: 'UNREGISTER' }
  | { type: 'SUSPEND' }
  | { type: 'RESUME' }
  /** The supervisor restarted: no controller survives that, so running cities must start again. */
  | { type: 'RECOVER' };

const actor = 'gc';

/**
 * A city's lifecycle: `absent` → (REGISTER, records `city.created`) → `registered` → `starting`
 * (running=false, status starting_agents; phases complete one by one) → `running` (records
 * `controller.started`); `stopping` → `stopped` (records `controller.stopped`); `failed` when a start
 * fails; from any live state UNREGISTER (records `city.unregister_requested`) → `unregistering` →
 * `unregistered` once the controller stopped. SUSPEND/RESUME record `city.suspended`/`city.resumed`.
 *
 * Pure. Effects are the named slot `wake` (the reconciler has work: a start, stop or unregister), filled
 * by the actor with `.provide()`; the slow work itself runs on the reconciler, which reports back with
 * PHASE_COMPLETED / STARTED / START_FAILED / STOPPED.
 */
export const cityMachine = setup({
  types: {
    input: {} as CityInput,
    context: {} as CityContext,
    events: {} as CityEvent,
    emitted: {} as RecordEvent,
  },
  actions: {
    wake: () => {},
  },
  guards: {
    suspended: ({ context }) => context.suspended,
    notSuspended: ({ context }) => !context.suspended,
    controllerUp: ({ context }) => context.controllerUp,
  },
}).createMachine({
  id: 'city',
  initial: 'absent',
  context: ({ input }) => ({ ...input, suspended: false, phasesCompleted: [], controllerUp: false }),
  states: {
    absent: {
      on: {
        REGISTER: {
          target: 'live',
          actions: emit(({ context: c }) =>
            recordOf({
              type: 'city.created',
              actor,
              subject: c.name,
              payload: { name: c.name, path: c.path },
            }),
          ),
        },
      },
    },
    live: {
      initial: 'registered',
      on: {
        UNREGISTER: {
          target: 'unregistering',
          actions: emit(({ context: c }) =>
            recordOf({
              type: 'city.unregister_requested',
              actor,
              subject: c.name,
              payload: { name: c.name, path: c.path },
            }),
          ),
        },
        SUSPEND: {
          guard: 'notSuspended',
          actions: [
            assign({ suspended: true }),
            emit(({ context: c }) =>
              recordOf({ type: 'city.suspended', actor, subject: c.name, payload: {} }),
            ),
          ],
        },
        RESUME: {
          guard: 'suspended',
          actions: [
            assign({ suspended: false }),
            emit(({ context: c }) => recordOf({ type: 'city.resumed', actor, subject: c.name, payload: {} })),
          ],
        },
      },
      states: {
        registered: {
          entry: 'wake',
          on: { START: 'starting' },
        },
        starting: {
          entry: assign({ phasesCompleted: [], error: undefined }),
          on: {
            PHASE_COMPLETED: {
              actions: assign({
                phasesCompleted: ({ context, event }) => [...context.phasesCompleted, event.phase],
              }),
            },
            STARTED: {
              target: 'running',
              actions: [
                assign({ startedAt: ({ event }) => event.at, controllerUp: true }),
                emit(({ context: c }) =>
                  recordOf({ type: 'controller.started', actor, subject: c.name, payload: {} }),
                ),
              ],
            },
            START_FAILED: { target: 'failed', actions: assign({ error: ({ event }) => event.error }) },
            RECOVER: 'registered',
          },
        },
        running: {
          on: {
            STOP: 'stopping',
            RECOVER: { target: 'registered', actions: assign({ controllerUp: false, startedAt: undefined }) },
          },
        },
        stopping: {
          entry: 'wake',
          on: {
            STOPPED: {
              target: 'stopped',
              actions: [
                assign({ controllerUp: false, startedAt: undefined }),
                emit(({ context: c }) =>
                  recordOf({ type: 'controller.stopped', actor, subject: c.name, payload: {} }),
                ),
              ],
            },
            RECOVER: { target: 'registered', actions: assign({ controllerUp: false, startedAt: undefined }) },
          },
        },
        // A stop lasts until the supervisor restarts (upstream has no city start operation).
        stopped: { on: { START: 'starting', RECOVER: 'registered' } },
        failed: { on: { START: 'starting', RECOVER: 'registered' } },
      },
    },
    unregistering: {
      entry: 'wake',
      on: {
        STOPPED: [
          {
            guard: 'controllerUp',
            target: 'unregistered',
            actions: [
              assign({ controllerUp: false, startedAt: undefined, error: ({ event }) => event.error }),
              emit(({ context: c }) =>
                recordOf({ type: 'controller.stopped', actor, subject: c.name, payload: {} }),
              ),
            ],
          },
          { target: 'unregistered', actions: assign({ error: ({ event }) => event.error }) },
        ],
      },
    },
    // Not final: the same directory may be registered again (`POST /v0/cities/register`); its log then
    // goes on from here, so a replay folds through every past registration.
    unregistered: {
      on: {
        REGISTER: {
          target: 'live',
          actions: [
            assign({ phasesCompleted: [], error: undefined }),
            emit(({ context: c }) =>
              recordOf({
                type: 'city.created',
                actor,
                subject: c.name,
                payload: { name: c.name, path: c.path },
              }),
            ),
          ],
        },
      },
    },
  },
});

/** Leaf state names of the city machine. */
export type CityState =
  | 'absent'
  | 'registered'
  | 'starting'
  | 'running'
  | 'stopping'
  | 'stopped'
  | 'failed'
  | 'unregistering'
  | 'unregistered';

/** The leaf state of a city state value (`{live: 'running'}` → `running`). Pure. */
export function leafState(value: unknown): CityState {
  const v: unknown =
    typeof value === 'object' && value !== null ? Object.values(value as Record<string, unknown>)[0] : value;
  return v as CityState;
}

/** The public status text of a city state (upstream CityInfo.status). Pure. */
export function cityStatus(value: unknown): string {
  const v = leafState(value);
  switch (v) {
    case 'absent':
    case 'registered':
    case 'starting':
      return 'starting_agents';
    case 'running':
    case 'stopping':
    case 'stopped':
    case 'failed':
    case 'unregistering':
    case 'unregistered':
      return v;
  }
}

/** The city-log types the city machine folds (replay): its state, which no user's custom event may forge. */
export const CITY_FOLDED_TYPES: ReadonlySet<string> = new Set([
  'city.created',
  'controller.started',
  'controller.stopped',
  'city.suspended',
  'city.resumed',
  'city.unregister_requested',
]);

/**
 * Maps a recorded event of city log `log` back to the machine events that recorded it (replay). Runtime-only
 * steps (START, phases, STOP) are re-inserted so the fold follows the live path. Pure.
 * @throws DamagedRecordError when a lifecycle record's payload does not match its schema.
 */
export function cityEventsFromRecord(event: Recorded, log: string): CityEvent[] {
  switch (event.type) {
    case 'city.created':
      payloadAs(log, event, 'city.created');
      return [{ type: 'REGISTER' }];
    case 'controller.started':
      payloadAs(log, event, 'controller.started');
      return [{ type: 'START' }, { type: 'STARTED', at: event.ts }];
    case 'controller.stopped':
      payloadAs(log, event, 'controller.stopped');
      return [{ type: 'STOP' }, { type: 'STOPPED' }];
    case 'city.suspended':
      payloadAs(log, event, 'city.suspended');
      return [{ type: 'SUSPEND' }];
    case 'city.resumed':
      payloadAs(log, event, 'city.resumed');
      return [{ type: 'RESUME' }];
    case 'city.unregister_requested':
      payloadAs(log, event, 'city.unregister_requested');
      return [{ type: 'UNREGISTER' }];
    default:
      return [];
  }
}
