import type { PendingInteraction } from '../pending/detect.ts';
import type { LogEntry } from '../transcript/logEntry.ts';

/**
 * The runtime a session's agent process runs on (tmux, subprocess, or the in-memory fake of the tests).
 * Every call is keyed by the runtime session name the supervisor minted (`session_name`); implementations
 * are safe for concurrent calls on distinct names. Machines never see this: session actors call it from
 * invoked actors, and the reconciler observes all sessions of a city with one `observe()`.
 */
export interface RuntimeProvider {
  /** `tmux`, `subprocess`, `fake`. */
  readonly kind: string;
  readonly capabilities: RuntimeCapabilities;
  /**
   * Creates the session and runs its start-up sequence (wait for the ready prompt when `readyPromptPrefix`
   * is given, up to the signal's deadline). The identity in `cfg.identity` is recorded with the session
   * so a later `observe()` (also from a restarted supervisor) can tell ours from foreign ones.
   * @throws SessionExistsError when a live session of that name exists;
   *   SessionDiedDuringStartupError when the process exits before it is ready;
   *   RuntimeError for anything else (the signal's abort included).
   */
  start(name: string, cfg: StartConfig, signal?: AbortSignal): Promise<void>;
  /** Ends the session and its whole process tree (SIGTERM, then SIGKILL after a grace). Idempotent. */
  stop(name: string): Promise<void>;
  /** A soft interrupt (Ctrl-C in a terminal, SIGINT to the process group otherwise). Best effort. */
  interrupt(name: string): Promise<void>;
  /**
   * One batched observation of every session of this provider whose name starts with `prefix` (one
   * `tmux list-panes -a`, not a call per session): running, pid, last activity, attached, identity.
   */
  observe(prefix?: string): Promise<Map<string, Observation>>;
  /**
   * Types `text` into the session as user input followed by Enter (a line on stdin for subprocess).
   * @throws SessionNotFoundError when the session is not running.
   */
  nudge(name: string, text: string): Promise<void>;
  /** Sends bare keys (`Enter`, `Escape`, `C-c`, `1`) without Enter. Subprocess: written to stdin. */
  sendKeys(name: string, ...keys: string[]): Promise<void>;
  /**
   * The last `lines` lines of rendered output (trailing blank rows trimmed); `lines <= 0` = all kept.
   * @throws SessionNotFoundError when there is no such session.
   */
  peek(name: string, lines: number): Promise<string>;
  /** Small per-session key/value store owned by the runtime (tmux: the session environment). */
  getMeta(name: string, key: string): Promise<string>;
  setMeta(name: string, key: string, value: string): Promise<void>;
  removeMeta(name: string, key: string): Promise<void>;
  /**
   * The argv that attaches a terminal to the session (`tmux -L <socket> attach -t <name>`).
   * @throws UnsupportedOperationError where the runtime has no terminal to attach to (`capabilities.attach`).
   */
  attachCommand(name: string): string[];
  /**
   * The interaction the session waits on, from the protocol itself (ACP's permission requests); runtimes
   * without it leave it out and their screen is read instead (pending/detect.ts).
   */
  pending?(name: string): Promise<PendingInteraction | undefined>;
  /**
   * Answers the pending interaction `requestId` with one of its options (`approve`, `approve_always`, `deny`,
   * or an option's id). @throws SessionNotFoundError; RuntimeError when that request is no longer pending.
   */
  respond?(name: string, requestId: string, option: string): Promise<void>;
  /**
   * ACP: the agent's session id of a running session (what a later start reattaches), and whether it began
   * by `session/load`. Runtimes without a protocol leave it out.
   */
  acpSession?(name: string): { id: string; began: 'new' | 'load' } | undefined;
  /**
   * The conversation the runtime itself saw (ACP's updates), as log entries; undefined where it has none.
   */
  conversation?(name: string, opts?: { complete?: boolean }): LogEntry[] | undefined;
  /** Releases what the provider holds (child handles, timers); sessions on tmux keep running. */
  close(): Promise<void>;
}

export interface RuntimeCapabilities {
  /** `attached` in observations means something. */
  attach: boolean;
  /** `lastActivity` in observations means something. */
  activity: boolean;
  /** Sessions outlive the supervisor process (tmux yes, subprocess no). */
  survivesRestart: boolean;
}

/** The identity the supervisor minted for a session; kept in the runtime (tmux: session environment). */
export interface SessionIdentity {
  /** `GC_SESSION_ID`: the session bead id. */
  sessionId: string;
  /** `GC_INSTANCE_TOKEN`: fresh per start; a stop or adoption checks it so a foreign session is never touched. */
  instanceToken: string;
  /** `GC_CITY`: the city name. */
  city: string;
}

export interface StartConfig {
  /** Full shell command run by `sh -c`; empty runs a shell. */
  command: string;
  workDir: string;
  /** Extra environment; an empty value unsets the variable. */
  env?: Record<string, string>;
  identity: SessionIdentity;
  /** Start counts as done once a rendered line starts with this (NBSP read as a space). */
  readyPromptPrefix?: string;
  /** Without a prompt prefix: wait this long before the start counts as done. */
  readyDelayMs?: number;
  /** `acp`: the agent speaks the Agent Client Protocol (an agent's `session = "acp"`). */
  transport?: 'acp';
  /** ACP: the agent's session of an earlier start, reattached with `session/load` where the agent offers it. */
  acpSessionId?: string;
}

export interface Observation {
  name: string;
  /** The session exists and its process is alive (a dead pane kept for forensics is not running). */
  running: boolean;
  /** The pane (or child) pid, when known. */
  pid?: number;
  /** Exit status of a dead process, when known. */
  exitCode?: number;
  /** Why the runtime ended the session itself (an ACP agent that broke the protocol). */
  error?: string;
  /** Last output time (ms since epoch), 0 when unknown. */
  lastActivity: number;
  attached: boolean;
  /** The identity the session was started with; absent for a session this supervisor did not mint. */
  identity?: SessionIdentity;
}

/** The runtime failures a session actor distinguishes. */
export class RuntimeError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
export class SessionExistsError extends RuntimeError {}
export class SessionNotFoundError extends RuntimeError {}
export class SessionDiedDuringStartupError extends RuntimeError {}
/** An operation this runtime cannot do at all (attach on ACP, raw keys on a structured protocol). */
export class UnsupportedOperationError extends RuntimeError {
  constructor(
    readonly runtime: string,
    readonly operation: string,
    reason: string,
  ) {
    super(`the ${runtime} runtime cannot ${operation}: ${reason}`);
  }
}
