/**
 * A session is a bead of type `session` (label `gc:session`) whose string metadata holds its lifecycle, as
 * upstream keeps it: `state`, `session_name`, `generation`, `instance_token`, `wake_attempts`, … plus a few
 * keys of ours under `gc.` (a pending create's request id, requests in flight, a restart's not-before time).
 * This file reads that record; the deciders (`decide*.ts`) write it. Pure.
 */
import type { StoredBead } from '../beads/index.ts';

export const SESSION_BEAD_TYPE = 'session';
export const SESSION_LABEL = 'gc:session';

/** Persisted lifecycle states (upstream's strings; a stored `awake` reads as `active`). */
export const SESSION_STATES = [
  'creating',
  'active',
  'asleep',
  'suspended',
  'draining',
  'drained',
  'archived',
  'quarantined',
  'closing',
  'closed',
  'orphaned',
  'stopped',
] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** Metadata keys (upstream's names, ours under `gc.`). */
export const K = {
  template: 'template',
  sessionName: 'session_name',
  alias: 'alias',
  provider: 'provider',
  origin: 'session_origin',
  workDir: 'work_dir',
  command: 'command',
  sessionKey: 'session_key',
  state: 'state',
  stateReason: 'state_reason',
  sleepReason: 'sleep_reason',
  pendingCreateClaim: 'pending_create_claim',
  creationCompleteAt: 'creation_complete_at',
  lastWokeAt: 'last_woke_at',
  sleptAt: 'slept_at',
  suspendedAt: 'suspended_at',
  closedAt: 'closed_at',
  closeReason: 'close_reason',
  wakeAttempts: 'wake_attempts',
  quarantinedUntil: 'quarantined_until',
  generation: 'generation',
  continuationEpoch: 'continuation_epoch',
  instanceToken: 'instance_token',
  permissionMode: 'permission_mode',
  lastNudgeAt: 'last_nudge_delivered_at',
  /** Ours: the request id of the create that waits for this session's first start. */
  createRequest: 'gc.create_request',
  /** Ours: message and submit requests accepted and not yet answered (JSON list). */
  requests: 'gc.requests',
  /** Ours: `1` while a start is wanted (a wake, a crash to restart). */
  wake: 'gc.wake',
  /** Ours: no restart before this instant (crash back-off). */
  notBefore: 'gc.not_before',
  /** Ours: the runtime was killed on purpose (`/kill`): its death is not a crash. */
  killed: 'gc.killed',
  /** Ours: `1` when the next start begins a new conversation (the last resume found none: a stale key). */
  freshStart: 'gc.fresh_start',
  /** Ours: the newest keyed messages and submits accepted, with their first 202 (keyedRequests.ts). */
  keyedRequests: 'gc.keyed_requests',
  /** Ours: the ACP agent's session id of the last start, reattached (`session/load`) by the next one. */
  acpSessionId: 'gc.acp_session_id',
  /** Ours: the agent's `idle_timeout` (ms), over the city's `[session] idle_timeout`. */
  idleTimeoutMs: 'gc.idle_timeout_ms',
  /** Ours: the agent's `wake_mode` when `fresh`: every wake begins a new conversation. */
  wakeMode: 'gc.wake_mode',
  /** Ours: the agent's `env` (JSON object, `$VAR`s already expanded), over the city's session environment. */
  env: 'gc.env',
  /** Ours: commands run once the session is up (JSON list: `session_setup`, then `session_setup_script`). */
  setup: 'gc.session_setup',
  /** Ours: the agent's `session_live` commands (JSON list), run after the nudge and again when they change. */
  live: 'gc.session_live',
  /** Ours: the setup variables of those commands (JSON object); `{{.Session}}` is filled at start. */
  setupVars: 'gc.setup_vars',
  /** Ours: each of those commands' limit (ms), from `[session] setup_timeout` when the city sets one. */
  setupTimeoutMs: 'gc.setup_timeout_ms',
} as const;

export interface PendingRequest {
  id: string;
  op: 'message' | 'submit';
  intent?: string;
}

/** What the service and the reconciler read of a session bead. */
export interface SessionRecord {
  id: string;
  title: string;
  createdAt: string;
  closed: boolean;
  state: SessionState;
  template: string;
  provider: string;
  sessionName: string;
  alias: string;
  workDir: string;
  command: string;
  generation: number;
  instanceToken: string;
  wakeAttempts: number;
  lastWokeAt: number | undefined;
  quarantinedUntil: number | undefined;
  notBefore: number | undefined;
  wakeWanted: boolean;
  killed: boolean;
  createRequest: string | undefined;
  requests: PendingRequest[];
  meta: Readonly<Record<string, string>>;
}

const instant = (v: string | undefined): number | undefined => {
  if (!v) return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
};
const int = (v: string | undefined): number => {
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : 0;
};

function requestsOf(raw: string | undefined): PendingRequest[] {
  if (!raw) return [];
  try {
    const list = JSON.parse(raw) as unknown;
    return Array.isArray(list)
      ? list.filter((r): r is PendingRequest => typeof (r as PendingRequest)?.id === 'string')
      : [];
  } catch {
    return [];
  }
}

export const isSessionBead = (bead: StoredBead): boolean => bead.issue_type === SESSION_BEAD_TYPE;

/** Reads a session bead's record; a closed bead is `closed` whatever its metadata says. */
export function sessionOf(bead: StoredBead): SessionRecord {
  const meta = bead.metadata ?? {};
  const stored = meta[K.state] === 'awake' ? 'active' : meta[K.state];
  const closed = bead.status === 'closed';
  const state: SessionState = closed
    ? 'closed'
    : (SESSION_STATES as readonly string[]).includes(stored ?? '')
      ? (stored as SessionState)
      : 'creating';
  return {
    id: bead.id,
    title: bead.title,
    createdAt: bead.created_at,
    closed,
    state,
    template: meta[K.template] ?? '',
    provider: meta[K.provider] ?? '',
    sessionName: meta[K.sessionName] ?? '',
    alias: meta[K.alias] ?? '',
    workDir: meta[K.workDir] ?? '',
    command: meta[K.command] ?? '',
    generation: int(meta[K.generation]),
    instanceToken: meta[K.instanceToken] ?? '',
    wakeAttempts: int(meta[K.wakeAttempts]),
    lastWokeAt: instant(meta[K.lastWokeAt]),
    quarantinedUntil: instant(meta[K.quarantinedUntil]),
    notBefore: instant(meta[K.notBefore]),
    wakeWanted: meta[K.wake] === '1',
    killed: meta[K.killed] === '1',
    createRequest: meta[K.createRequest] || undefined,
    requests: requestsOf(meta[K.requests]),
    meta,
  };
}

/** The runtime session name of an API-created session: `s-<bead id>` (upstream's rule, `/` → `--`). */
export const sessionNameFor = (beadId: string): string => `s-${beadId.replace(/\//g, '--')}`;
