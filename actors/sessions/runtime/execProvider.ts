/**
 * Sessions on a user's script (`[session] provider = "exec:<script>"`): every operation is one call of the
 * script by upstream's exec protocol (execScript.ts), so sessions can live wherever the script puts them (a
 * container, a remote host, plain processes as in docs/exec-session-sample.mjs). Readiness is ours, as
 * upstream: after `start` returns, `peek` is polled for the ready prompt. The identity is kept with the
 * session as meta (GC_SESSION_ID, GC_INSTANCE_TOKEN, GC_CITY) and read once per session seen, so a steady
 * observe is one `list-running`. The protocol has no exit status and no pid: a death is seen as a session
 * that left `list-running`, without a status.
 */
import { runScript, ScriptError } from './execScript.ts';
import {
  RuntimeError,
  SessionDiedDuringStartupError,
  SessionExistsError,
  SessionNotFoundError,
  type Observation,
  type RuntimeCapabilities,
  type RuntimeProvider,
  type SessionIdentity,
  type StartConfig,
} from './provider.ts';
import { hasReadyLine, lastLines } from './screen.ts';

export interface ExecProviderOptions {
  /** The script's path (absolute, or a name found on PATH). */
  script: string;
  /** Every operation but start (upstream: 30 s). */
  timeoutMs?: number;
  /** `start` with its readiness wait, when the caller's signal has no deadline (upstream: 120 s). */
  startTimeoutMs?: number;
  /** Between two readiness polls. */
  pollMs?: number;
}

const IDENTITY_KEYS = { sessionId: 'GC_SESSION_ID', instanceToken: 'GC_INSTANCE_TOKEN', city: 'GC_CITY' };

export class ExecProvider implements RuntimeProvider {
  readonly kind = 'exec';
  readonly capabilities: RuntimeCapabilities = { attach: false, activity: false, survivesRestart: true };
  readonly script: string;
  private readonly timeoutMs: number;
  private readonly startTimeoutMs: number;
  private readonly pollMs: number;
  /** Sessions seen running, with their identity: one that leaves `list-running` is reported as ended. */
  private readonly known = new Map<string, { identity?: SessionIdentity; running: boolean }>();

  constructor(opts: ExecProviderOptions) {
    this.script = opts.script;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.startTimeoutMs = opts.startTimeoutMs ?? 120_000;
    this.pollMs = opts.pollMs ?? 50;
  }

  private run(args: string[], stdin?: string, signal?: AbortSignal): Promise<string> {
    return runScript(this.script, {
      args,
      timeoutMs: this.timeoutMs,
      ...(stdin !== undefined ? { stdin } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  private async isRunning(name: string, signal?: AbortSignal): Promise<boolean> {
    return (await this.run(['is-running', name], undefined, signal).catch(() => '')).trim() === 'true';
  }

  async start(name: string, cfg: StartConfig, signal?: AbortSignal): Promise<void> {
    const deadline = signal ?? AbortSignal.timeout(this.startTimeoutMs);
    if (await this.isRunning(name, deadline)) throw new SessionExistsError(`session ${name} exists`);
    const env: Record<string, string> = { ...cfg.env };
    for (const [field, key] of Object.entries(IDENTITY_KEYS))
      env[key] = cfg.identity[field as keyof SessionIdentity];
    const config = { work_dir: cfg.workDir, command: cfg.command, env };
    try {
      await runScript(this.script, {
        args: ['start', name],
        stdin: JSON.stringify(config),
        timeoutMs: this.startTimeoutMs,
        signal: deadline,
      });
    } catch (err) {
      if (err instanceof ScriptError && /already exists/i.test(err.stderr))
        throw new SessionExistsError(err.message, { cause: err });
      throw err;
    }
    this.known.set(name, { identity: { ...cfg.identity }, running: true });
    try {
      await Promise.all(
        Object.entries(IDENTITY_KEYS).map(([field, key]) =>
          this.run(['set-meta', name, key], cfg.identity[field as keyof SessionIdentity], deadline),
        ),
      );
      await this.awaitReady(name, cfg, deadline);
    } catch (err) {
      await this.stop(name).catch(() => undefined);
      throw err;
    }
  }

  private async awaitReady(name: string, cfg: StartConfig, signal: AbortSignal): Promise<void> {
    const prefix = cfg.readyPromptPrefix;
    const delayUntil = Date.now() + (prefix ? 0 : (cfg.readyDelayMs ?? 0));
    for (;;) {
      // Every call of the wait ends with the deadline: a slow script cannot stretch it.
      const screen = await this.run(['peek', name, '50'], undefined, signal).catch(() => '');
      if (prefix ? hasReadyLine(screen, prefix) : Date.now() >= delayUntil) return;
      if (!signal.aborted && !(await this.isRunning(name, signal)) && !signal.aborted) {
        const shown = lastLines(screen, 10);
        throw new SessionDiedDuringStartupError(
          `session ${name} exited during start-up${shown ? `; its last output:\n${shown}` : ''}`,
        );
      }
      if (signal.aborted)
        throw new RuntimeError(`session ${name} was not ready before the start deadline`, {
          cause: signal.reason,
        });
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }

  async stop(name: string): Promise<void> {
    await this.run(['stop', name]);
    this.known.delete(name);
  }

  async interrupt(name: string): Promise<void> {
    await this.run(['interrupt', name]);
  }

  async observe(prefix = ''): Promise<Map<string, Observation>> {
    const listed = await this.run(['list-running', prefix]);
    const names = new Set(listed === '' ? [] : listed.split('\n').filter(Boolean));
    const result = new Map<string, Observation>();
    await Promise.all(
      [...names].map(async (name) => {
        let entry = this.known.get(name);
        if (!entry?.running) {
          entry = { running: true };
          const identity = await this.readIdentity(name);
          if (identity) entry.identity = identity;
          this.known.set(name, entry);
        }
      }),
    );
    for (const [name, entry] of this.known) {
      if (!name.startsWith(prefix)) continue;
      entry.running = names.has(name);
      const obs: Observation = { name, running: entry.running, lastActivity: 0, attached: false };
      if (entry.identity) obs.identity = { ...entry.identity };
      result.set(name, obs);
    }
    return result;
  }

  private async readIdentity(name: string): Promise<SessionIdentity | undefined> {
    const values = await Promise.all(
      Object.values(IDENTITY_KEYS).map((key) => this.run(['get-meta', name, key]).catch(() => '')),
    );
    const [sessionId, instanceToken, city] = values;
    return sessionId && instanceToken ? { sessionId, instanceToken, city: city ?? '' } : undefined;
  }

  async nudge(name: string, text: string): Promise<void> {
    await this.mustRun(name);
    await this.run(['nudge', name], text);
  }

  async sendKeys(name: string, ...keys: string[]): Promise<void> {
    await this.mustRun(name);
    await this.run(['send-keys', name, ...keys]);
  }

  async peek(name: string, lines: number): Promise<string> {
    return this.orNotFound(name, this.run(['peek', name, String(lines)]));
  }

  async getMeta(name: string, key: string): Promise<string> {
    return this.orNotFound(name, this.run(['get-meta', name, key]));
  }

  async setMeta(name: string, key: string, value: string): Promise<void> {
    await this.orNotFound(name, this.run(['set-meta', name, key], value));
  }

  async removeMeta(name: string, key: string): Promise<void> {
    await this.orNotFound(name, this.run(['remove-meta', name, key]));
  }

  attachCommand(name: string): string[] {
    return [this.script, 'attach', name];
  }

  async close(): Promise<void> {
    // Sessions belong to the script's world and outlive the supervisor; nothing is held here.
  }

  private async mustRun(name: string): Promise<void> {
    if (!(await this.isRunning(name))) throw new SessionNotFoundError(`session ${name} is not running`);
  }

  /** The protocol has no "not found": an operation that failed on a session that does not run is one. */
  private async orNotFound<T>(name: string, call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (err) {
      if (err instanceof ScriptError && !this.known.has(name) && !(await this.isRunning(name)))
        throw new SessionNotFoundError(`no session ${name} (${err.stderr || err.message})`, { cause: err });
      throw err;
    }
  }
}
