/**
 * The session lifecycle as an XState machine: one state per stored `state`, one event per command of
 * upstream's table (`CREATE`, `READY`, `SUSPEND`, `WAKE`, `SLEEP`, `QUARANTINE`, `DRAIN`, `ARCHIVE`,
 * `CLOSE`). It is the table the deciders ask (`transitions.ts`) and what the inspector shows; it has no
 * context, actions or effects: the stored record is the context, and the reconciler runs the effects.
 */
import { setup } from 'xstate';

export type SessionMachineEvent =
  | { type: 'CREATE' }
  | { type: 'READY' }
  | { type: 'SUSPEND' }
  | { type: 'WAKE' }
  | { type: 'SLEEP' }
  | { type: 'QUARANTINE' }
  | { type: 'DRAIN' }
  | { type: 'ARCHIVE' }
  | { type: 'CLOSE' };

const CLOSE = { CLOSE: 'closed' } as const;

export const sessionMachine = setup({ types: { events: {} as SessionMachineEvent } }).createMachine({
  id: 'session',
  initial: 'none',
  states: {
    none: { on: { CREATE: 'creating' } },
    creating: { on: { READY: 'active', ...CLOSE } },
    active: {
      on: {
        SUSPEND: 'suspended',
        SLEEP: 'asleep',
        QUARANTINE: 'quarantined',
        DRAIN: 'draining',
        ARCHIVE: 'archived',
        ...CLOSE,
      },
    },
    asleep: {
      on: { SUSPEND: 'suspended', WAKE: 'active', QUARANTINE: 'quarantined', ARCHIVE: 'archived', ...CLOSE },
    },
    suspended: { on: { WAKE: 'active', ARCHIVE: 'archived', ...CLOSE } },
    quarantined: { on: { SUSPEND: 'suspended', WAKE: 'active', ARCHIVE: 'archived', ...CLOSE } },
    draining: { on: { ARCHIVE: 'archived', ...CLOSE } },
    archived: { on: { WAKE: 'active', ...CLOSE } },
    drained: { on: CLOSE },
    closing: { on: CLOSE },
    orphaned: { on: CLOSE },
    stopped: { on: CLOSE },
    closed: { type: 'final' },
  },
});
