import { emit, setup } from 'xstate';
import { payloadAs } from '../schemas/eventDecode.ts';
import { recordOf, type Recorded, type RecordEvent } from './recorded.ts';

/** How the previous supervisor run ended (upstream SupervisorStartedPayload.previous_exit). */
export type PreviousExit = 'clean' | 'crash' | 'unknown';

export type SupervisorEvent =
  { type: 'BOOTED'; previous_exit: PreviousExit } | { type: 'STOP' } | { type: 'STOPPED' };

const actor = 'gc';
const subject = 'supervisor';

/**
 * The supervisor's own lifecycle over its whole log, across runs: `never` (empty log) → (BOOTED, records
 * `supervisor.started`) → `running` → (STOP) `stopping` → (STOPPED, records `supervisor.stopped`)
 * `stopped` → BOOTED again on the next run. A run that ends without STOPPED (a crash) leaves the fold in
 * `running`, and the next BOOTED starts from there: which state BOOTED leaves is the previous exit.
 * Only `running` admits requests. Pure.
 */
export const supervisorMachine = setup({
  types: { events: {} as SupervisorEvent, emitted: {} as RecordEvent },
}).createMachine({
  id: 'supervisor',
  initial: 'never',
  states: {
    never: {},
    // A crashed run never recorded its stop: the next run's BOOTED starts from here.
    running: { on: { STOP: 'stopping' } },
    stopping: {
      on: {
        STOPPED: {
          target: 'stopped',
          actions: emit(() => recordOf({ type: 'supervisor.stopped', actor, subject, payload: {} })),
        },
      },
    },
    stopped: {},
  },
  // From any state: the state it leaves is the previous run's exit (`previousExitOf`).
  on: {
    BOOTED: {
      target: '.running',
      actions: emit(({ event }) =>
        recordOf({
          type: 'supervisor.started',
          actor,
          subject,
          payload: { previous_exit: event.previous_exit },
        }),
      ),
    },
  },
});

/** The previous exit implied by a folded state value: where BOOTED starts from. Pure. */
export function previousExitOf(value: unknown): PreviousExit {
  if (value === 'stopped') return 'clean';
  if (value === 'running' || value === 'stopping') return 'crash';
  return 'unknown';
}

/**
 * Maps a recorded event of supervisor log `log` back to machine events (replay). Pure.
 * @throws DamagedRecordError when a lifecycle record's payload does not match its schema.
 */
export function supervisorEventsFromRecord(event: Recorded, log: string): SupervisorEvent[] {
  switch (event.type) {
    case 'supervisor.started': {
      const { previous_exit } = payloadAs(log, event, 'supervisor.started');
      return [{ type: 'BOOTED', previous_exit }];
    }
    case 'supervisor.stopped':
      payloadAs(log, event, 'supervisor.stopped');
      return [{ type: 'STOP' }, { type: 'STOPPED' }];
    default:
      return [];
  }
}
