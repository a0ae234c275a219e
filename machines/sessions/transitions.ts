/**
 * The session lifecycle's legal moves (upstream's command table): which stored states each command may
 * leave from, and where it goes. Every other move is illegal, which the API answers `409 conflict:`.
 * This is pure data and pure functions.
 */
import type { SessionState } from './sessionRecord.ts';

export type SessionCommand =
  'create' | 'ready' | 'suspend' | 'wake' | 'sleep' | 'quarantine' | 'drain' | 'archive' | 'close';

interface Move {
  from: readonly SessionState[] | 'any-open';
  to: SessionState;
}

/**
 * Upstream's table as it stands. `wake` is the whole move to running: the API's wake of a suspended session
 * stores `asleep` with a start pending, and the reconciler's successful start completes the move.
 */
export const TRANSITIONS: Readonly<Record<SessionCommand, Move>> = {
  create: { from: [], to: 'creating' },
  ready: { from: ['creating'], to: 'active' },
  suspend: { from: ['active', 'asleep', 'quarantined'], to: 'suspended' },
  wake: { from: ['asleep', 'suspended', 'quarantined', 'archived'], to: 'active' },
  sleep: { from: ['active'], to: 'asleep' },
  quarantine: { from: ['active', 'asleep'], to: 'quarantined' },
  drain: { from: ['active'], to: 'draining' },
  archive: { from: ['active', 'asleep', 'suspended', 'quarantined', 'draining'], to: 'archived' },
  close: { from: 'any-open', to: 'closed' },
};

/** Where `command` takes a session in `from`, or undefined when the table does not allow it. */
export function nextState(from: SessionState | undefined, command: SessionCommand): SessionState | undefined {
  const move = TRANSITIONS[command];
  if (from === undefined) return command === 'create' ? move.to : undefined;
  if (move.from === 'any-open') return from === 'closed' ? undefined : move.to;
  return move.from.includes(from) ? move.to : undefined;
}
