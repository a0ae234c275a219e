/**
 * The session lifecycle's legal moves, read from the session machine (upstream's command table): which
 * stored states each command may leave from, and where it goes. Every other move is illegal, which the API
 * answers `409 conflict:`. Pure.
 */
import { transition } from 'xstate';
import { sessionMachine, type SessionMachineEvent } from './session.machine.ts';
import type { SessionState } from './sessionRecord.ts';

export type SessionCommand =
  'create' | 'ready' | 'suspend' | 'wake' | 'sleep' | 'quarantine' | 'drain' | 'archive' | 'close';

export const SESSION_COMMANDS: readonly SessionCommand[] = [
  'create',
  'ready',
  'suspend',
  'wake',
  'sleep',
  'quarantine',
  'drain',
  'archive',
  'close',
];

const eventOf = (command: SessionCommand): SessionMachineEvent =>
  ({ type: command.toUpperCase() }) as SessionMachineEvent;

/** Where `command` takes a session in `from` (undefined: not created yet), or undefined when illegal. */
export function nextState(from: SessionState | undefined, command: SessionCommand): SessionState | undefined {
  const snapshot = sessionMachine.resolveState({ value: from ?? 'none' });
  const event = eventOf(command);
  if (!snapshot.can(event)) return undefined;
  const [next] = transition(sessionMachine, snapshot, event);
  return next.value as SessionState;
}

/**
 * The command that takes a session from `from` to `to` in one legal move, or undefined when none does (a
 * record rewritten by hand, a fold that skipped a step): what the inspector shows as the transition's event.
 */
export function commandBetween(from: SessionState | undefined, to: SessionState): SessionCommand | undefined {
  return SESSION_COMMANDS.find((command) => nextState(from, command) === to);
}
