/**
 * An agent as an XState machine, for the inspector and the live actor view. Its states are upstream's
 * agent states, which are computed on read from config and the runtime rather than stored, so every state
 * can follow every other: the event is named after the state moved into (`IDLE` into `idle`), `UPDATE`
 * when only the facts changed, and `REMOVE` into `gone` (final) once the agent left city.toml or its city
 * stopped. No effects: the agent service computes the states and sends the events.
 */
import { assign, setup } from 'xstate';

/** Upstream's agent states. */
export const AGENT_STATES = ['suspended', 'quarantined', 'stopped', 'working', 'waiting', 'idle'] as const;
export type AgentState = (typeof AGENT_STATES)[number];

export function isAgentState(value: unknown): value is AgentState {
  return (AGENT_STATES as readonly unknown[]).includes(value);
}

/**
 * What a watcher asks of an agent besides its state. Every key is present (undefined when unset) so that
 * an event's facts replace the previous ones: XState's assign merges, and a finished bead must not linger.
 */
export interface AgentFacts {
  running: boolean;
  pool: string | undefined;
  rig: string | undefined;
  provider: string | undefined;
  active_bead: string | undefined;
  /** The runtime session's name while it runs. */
  session: string | undefined;
}

export interface AgentContext extends AgentFacts {
  city: string;
  /** The qualified name (`base` or `dir/base`; a pool instance's `base-N`). */
  name: string;
}

const INTO = {
  suspended: 'SUSPEND',
  quarantined: 'QUARANTINE',
  stopped: 'STOP',
  working: 'WORK',
  waiting: 'WAIT',
  idle: 'IDLE',
} as const satisfies Record<AgentState, string>;

type MoveType = (typeof INTO)[AgentState];

export type AgentMachineEvent = { type: MoveType | 'UPDATE'; facts: AgentFacts } | { type: 'REMOVE' };

export type AgentEventType = AgentMachineEvent['type'];

/** The event that takes an agent from `from` to `to`. Pure. */
export function agentEventBetween(from: AgentState, to: AgentState): MoveType | 'UPDATE';
export function agentEventBetween(from: AgentState, to: AgentState | 'gone'): AgentEventType;
export function agentEventBetween(from: AgentState, to: AgentState | 'gone'): AgentEventType {
  if (to === 'gone') return 'REMOVE';
  return from === to ? 'UPDATE' : INTO[to];
}

const MOVES = {
  SUSPEND: { target: 'suspended', actions: 'record' },
  QUARANTINE: { target: 'quarantined', actions: 'record' },
  STOP: { target: 'stopped', actions: 'record' },
  WORK: { target: 'working', actions: 'record' },
  WAIT: { target: 'waiting', actions: 'record' },
  IDLE: { target: 'idle', actions: 'record' },
  UPDATE: { actions: 'record' },
  REMOVE: { target: 'gone' },
} as const;

export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    events: {} as AgentMachineEvent,
    input: {} as { city: string; name: string; facts: AgentFacts },
  },
  actions: {
    record: assign(({ event }) => ('facts' in event ? { ...event.facts } : {})),
  },
}).createMachine({
  id: 'agent',
  // An agent first seen is resolved straight into its computed state; `stopped` is where a new one starts.
  initial: 'stopped',
  context: ({ input }) => ({ city: input.city, name: input.name, ...input.facts }),
  states: {
    suspended: { on: MOVES },
    quarantined: { on: MOVES },
    stopped: { on: MOVES },
    working: { on: MOVES },
    waiting: { on: MOVES },
    idle: { on: MOVES },
    gone: { type: 'final' },
  },
});
