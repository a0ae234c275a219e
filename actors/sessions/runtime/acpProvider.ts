/**
 * Sessions that speak the Agent Client Protocol (`[session] provider = "acp"`, or an agent's `session = "acp"`
 * whose provider supports it): the agent runs on pipes like a subprocess session, and the supervisor is its
 * ACP client through the official SDK (acpSession.ts). Start is the handshake (`initialize`, `session/new`);
 * a restart reattaches the agent's earlier session with `session/load` where it offers it; a nudge is a
 * `session/prompt`; interrupt is `session/cancel`; permission requests are the session's pending
 * interaction, answered by `respond`. There is no terminal: attach and raw keys are precise errors. Sessions
 * end with the supervisor (pipes), as on the subprocess runtime, and the reconciler starts them again.
 */
import { AcpSession, type AcpLimits } from './acpSession.ts';
import type { PendingInteraction } from '../pending/detect.ts';
import type { LogEntry } from '../transcript/logEntry.ts';
import {
  RuntimeError,
  SessionDiedDuringStartupError,
  SessionExistsError,
  SessionNotFoundError,
  UnsupportedOperationError,
  type Observation,
  type RuntimeCapabilities,
  type RuntimeProvider,
  type StartConfig,
} from './provider.ts';
import { lastLines, trimRendered } from './screen.ts';

export interface AcpProviderOptions extends Partial<AcpLimits> {
  /** The handshake's deadline when the caller's signal has none (upstream: 30 s). */
  handshakeTimeoutMs?: number;
}

export class AcpProvider implements RuntimeProvider {
  readonly kind = 'acp';
  readonly capabilities: RuntimeCapabilities = { attach: false, activity: true, survivesRestart: false };
  private readonly sessions = new Map<string, AcpSession>();
  private readonly limits: AcpLimits;
  private readonly handshakeTimeoutMs: number;

  constructor(opts: AcpProviderOptions = {}) {
    this.limits = {
      maxLineBytes: opts.maxLineBytes ?? 8 * 1024 * 1024,
      maxLines: opts.maxLines ?? 1000,
      stopGraceMs: opts.stopGraceMs ?? 2000,
    };
    this.handshakeTimeoutMs = opts.handshakeTimeoutMs ?? 30_000;
  }

  async start(name: string, cfg: StartConfig, signal?: AbortSignal): Promise<void> {
    const existing = this.sessions.get(name);
    if (existing?.running) throw new SessionExistsError(`session ${name} exists`);
    if (existing) await this.stop(name);
    const session = new AcpSession(name, { ...cfg.identity }, cfg, this.limits);
    this.sessions.set(name, session);
    const deadline = signal ?? AbortSignal.timeout(this.handshakeTimeoutMs);
    try {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () =>
          reject(
            new RuntimeError(`session ${name}: the ACP handshake did not finish before the start deadline`),
          );
        if (deadline.aborted) return onAbort();
        deadline.addEventListener('abort', onAbort, { once: true });
        void session.exited.then(() => {
          if (session.error) return reject(new RuntimeError(`session ${name}: ${session.error}`));
          const shown = lastLines(trimRendered(session.render()), 10);
          reject(
            new SessionDiedDuringStartupError(
              `session ${name} exited${session.exitCode !== undefined ? ` with status ${session.exitCode}` : ''}` +
                ` during start-up${shown ? `; its last output:\n${shown}` : ''}`,
            ),
          );
        });
        session.handshake(cfg.workDir, cfg.acpSessionId).then(resolve, async (err: Error) => {
          // A connection that closed because the process ended is that death (reported above), not this.
          const ended = await Promise.race([
            session.exited.then(() => true),
            new Promise<boolean>((r) => setTimeout(() => r(false), 1000).unref()),
          ]);
          if (!ended) reject(new RuntimeError(`session ${name}: ${err.message}`, { cause: err }));
        });
      });
    } catch (err) {
      if (this.sessions.get(name) === session) await this.stop(name);
      throw err;
    }
  }

  async stop(name: string): Promise<void> {
    const session = this.sessions.get(name);
    if (!session) return;
    session.conn.close();
    await session.stop();
    if (this.sessions.get(name) === session) this.sessions.delete(name);
  }

  async interrupt(name: string): Promise<void> {
    await this.sessions.get(name)?.cancel();
  }

  async observe(prefix = ''): Promise<Map<string, Observation>> {
    const result = new Map<string, Observation>();
    for (const [name, s] of this.sessions) {
      if (!name.startsWith(prefix)) continue;
      const obs: Observation = {
        name,
        running: s.running,
        lastActivity: s.lastActivity,
        attached: false,
        identity: { ...s.identity },
      };
      if (s.proc.pid !== undefined) obs.pid = s.proc.pid;
      if (s.exitCode !== undefined) obs.exitCode = s.exitCode;
      if (s.error !== undefined) obs.error = s.error;
      result.set(name, obs);
    }
    return result;
  }

  async nudge(name: string, text: string): Promise<void> {
    this.running(name).nudge(text);
  }

  /** Only the interrupt keys mean something to a protocol: they cancel the turn. */
  async sendKeys(name: string, ...keys: string[]): Promise<void> {
    const session = this.running(name);
    const other = keys.filter((k) => k !== 'C-c' && k !== 'Escape');
    if (other.length > 0)
      throw new UnsupportedOperationError(
        this.kind,
        `send the keys ${other.join(' ')}`,
        'an ACP agent takes prompts (nudge) and answers to its requests (respond), not keys',
      );
    if (keys.length > 0) await session.cancel();
  }

  async peek(name: string, lines: number): Promise<string> {
    return this.peekNow(name, lines);
  }

  /** peek without a turn of the event loop (the bench reads it inside a change listener). */
  peekNow(name: string, lines: number): string {
    return lastLines(trimRendered(this.get(name).render()), lines);
  }

  /** Calls `listener` on each change of the session (an update folded, a turn's end); returns the unsubscribe. */
  onChange(name: string, listener: () => void): () => void {
    const events = this.get(name).events;
    events.on('change', listener);
    return () => events.off('change', listener);
  }

  async pending(name: string): Promise<PendingInteraction | undefined> {
    return this.get(name).pending;
  }

  async respond(name: string, requestId: string, option: string): Promise<void> {
    if (!this.running(name).respond(requestId, option))
      throw new RuntimeError(`session ${name} has no pending request ${requestId} with an option ${option}`);
  }

  acpSession(name: string): { id: string; began: 'new' | 'load' } | undefined {
    const s = this.sessions.get(name);
    return s?.agentSessionId && s.began ? { id: s.agentSessionId, began: s.began } : undefined;
  }

  conversation(name: string, opts: { complete?: boolean } = {}): LogEntry[] | undefined {
    return this.sessions.get(name)?.conversation.logEntries(opts);
  }

  async getMeta(name: string, key: string): Promise<string> {
    return this.get(name).meta.get(key) ?? '';
  }

  async setMeta(name: string, key: string, value: string): Promise<void> {
    this.get(name).meta.set(key, value);
  }

  async removeMeta(name: string, key: string): Promise<void> {
    this.get(name).meta.delete(key);
  }

  attachCommand(): string[] {
    throw new UnsupportedOperationError(
      this.kind,
      'attach',
      'an ACP agent speaks JSON-RPC on pipes, not a terminal',
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((name) => this.stop(name)));
  }

  private get(name: string): AcpSession {
    const session = this.sessions.get(name);
    if (!session) throw new SessionNotFoundError(`no session ${name}`);
    return session;
  }

  private running(name: string): AcpSession {
    const session = this.get(name);
    if (!session.running) throw new SessionNotFoundError(`session ${name} is not running`);
    return session;
  }
}
