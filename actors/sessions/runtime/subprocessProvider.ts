/**
 * Sessions as child processes on pipes, for headless workers and hosts without tmux: `sh -c <command>` in a
 * process group of its own, stdin for input, stdout and stderr into a bounded buffer for peek, readiness and
 * activity. Sessions end with the supervisor (close() stops them); the reconciler starts them again.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { constants } from 'node:os';
import { processTree, terminate } from './processTree.ts';
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
  type SessionIdentity,
} from './provider.ts';
import { hasReadyLine, lastLines, renderRawLine, trimRendered } from './screen.ts';

export interface SubprocessProviderOptions {
  /** Output lines kept per session. */
  maxLines?: number;
  /** Output bytes kept per session (whichever bound is reached first). */
  maxBytes?: number;
  /** The start deadline when the caller's signal has none. */
  startTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL when stopping. */
  stopGraceMs?: number;
}

// Keys as a terminal would send them; C-c is a signal instead (no terminal turns it into one here).
const KEYS: Record<string, string> = {
  Enter: '\n',
  Escape: '\x1b',
  Tab: '\t',
  Space: ' ',
  BSpace: '\x7f',
  'C-d': '\x04',
  Up: '\x1b[A',
  Down: '\x1b[B',
  Right: '\x1b[C',
  Left: '\x1b[D',
};

export class SubprocessProvider implements RuntimeProvider {
  readonly kind = 'subprocess';
  readonly capabilities: RuntimeCapabilities = { attach: false, activity: true, survivesRestart: false };
  private readonly sessions = new Map<string, Child>();
  private readonly maxLines: number;
  private readonly maxBytes: number;
  private readonly startTimeoutMs: number;
  private readonly stopGraceMs: number;

  constructor(opts: SubprocessProviderOptions = {}) {
    this.maxLines = opts.maxLines ?? 2_000;
    this.maxBytes = opts.maxBytes ?? 1024 * 1024;
    this.startTimeoutMs = opts.startTimeoutMs ?? 30_000;
    this.stopGraceMs = opts.stopGraceMs ?? 2_000;
  }

  async start(name: string, cfg: StartConfig, signal?: AbortSignal): Promise<void> {
    const existing = this.sessions.get(name);
    if (existing?.running) throw new SessionExistsError(`session ${name} exists`);
    // An ended session's leftovers (its output, a child it left behind) give way to the new start.
    if (existing) await this.stop(name);
    if (this.sessions.has(name)) throw new SessionExistsError(`session ${name} exists`);

    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [key, value] of Object.entries(cfg.env ?? {})) {
      if (value === '') delete env[key];
      else env[key] = value;
    }
    env.GC_SESSION_ID = cfg.identity.sessionId;
    env.GC_INSTANCE_TOKEN = cfg.identity.instanceToken;
    env.GC_CITY = cfg.identity.city;
    const proc = spawn('sh', ['-c', cfg.command === '' ? 'exec sh' : cfg.command], {
      cwd: cfg.workDir,
      env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const child = new Child(proc, { ...cfg.identity }, new OutputBuffer(this.maxLines, this.maxBytes));
    this.sessions.set(name, child);
    try {
      await this.awaitReady(name, child, cfg, signal ?? AbortSignal.timeout(this.startTimeoutMs));
    } catch (err) {
      if (this.sessions.get(name) === child) await this.stop(name);
      throw err;
    }
  }

  private async awaitReady(name: string, child: Child, cfg: StartConfig, signal: AbortSignal): Promise<void> {
    const prefix = cfg.readyPromptPrefix;
    const delayUntil = Date.now() + (prefix ? 0 : (cfg.readyDelayMs ?? 0));
    const ready = () => (prefix ? hasReadyLine(child.output.render(), prefix) : Date.now() >= delayUntil);
    while (!ready()) {
      if (!child.running) break;
      if (signal.aborted) {
        throw new RuntimeError(`session ${name} was not ready before the start deadline`, {
          cause: signal.reason,
        });
      }
      const wake = new AbortController();
      const timer = prefix ? undefined : setTimeout(() => wake.abort(), Math.max(0, delayUntil - Date.now()));
      await once(child.events, 'change', { signal: AbortSignal.any([signal, wake.signal]) }).catch(
        () => undefined,
      );
      clearTimeout(timer);
    }
    // Ready, or the process ended: a process that exits at once still counts as having died at start-up.
    if (!child.running) {
      const shown = lastLines(trimRendered(child.output.render()), 10);
      throw new SessionDiedDuringStartupError(
        `session ${name} exited${child.exitCode !== undefined ? ` with status ${child.exitCode}` : ''}` +
          ` during start-up${child.spawnError ? ` (${child.spawnError.message})` : ''}` +
          (shown ? `; its last output:\n${shown}` : ''),
      );
    }
  }

  async stop(name: string): Promise<void> {
    const child = this.sessions.get(name);
    if (!child) return;
    const pid = child.proc.pid;
    if (pid !== undefined) {
      // The group outlives its leader when a child stays behind; a group with members cannot be reused.
      const pids = processTree(pid);
      if (pids.length > 0) await terminate(pids, pid, this.stopGraceMs);
    }
    if (child.running) await child.exited;
    if (this.sessions.get(name) === child) this.sessions.delete(name);
  }

  async interrupt(name: string): Promise<void> {
    const child = this.sessions.get(name);
    if (child?.running && child.proc.pid !== undefined) signalGroup(child.proc.pid, 'SIGINT');
  }

  async observe(prefix = ''): Promise<Map<string, Observation>> {
    const result = new Map<string, Observation>();
    for (const [name, child] of this.sessions) {
      if (!name.startsWith(prefix)) continue;
      const obs: Observation = {
        name,
        running: child.running,
        lastActivity: child.output.lastActivity,
        attached: false,
        identity: { ...child.identity },
      };
      if (child.proc.pid !== undefined) obs.pid = child.proc.pid;
      if (child.exitCode !== undefined) obs.exitCode = child.exitCode;
      result.set(name, obs);
    }
    return result;
  }

  async nudge(name: string, text: string): Promise<void> {
    const child = this.running(name);
    // Shown as a terminal echoes typed input: the agent's answer starts on a line of its own, where the
    // screen readers (pending approvals) look for it, instead of after an unfinished prompt.
    child.output.push(`${text}\n`);
    child.proc.stdin.write(`${text}\n`);
  }

  async sendKeys(name: string, ...keys: string[]): Promise<void> {
    const child = this.running(name);
    for (const key of keys) {
      if (key === 'C-c') signalGroup(child.proc.pid!, 'SIGINT');
      else child.proc.stdin.write(KEYS[key] ?? key);
    }
  }

  async peek(name: string, lines: number): Promise<string> {
    return lastLines(trimRendered(this.get(name).output.render()), lines);
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
    throw new UnsupportedOperationError(this.kind, 'attach', 'its sessions are pipes, not terminals');
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((name) => this.stop(name)));
  }

  private get(name: string): Child {
    const child = this.sessions.get(name);
    if (!child) throw new SessionNotFoundError(`no session ${name}`);
    return child;
  }

  private running(name: string): Child {
    const child = this.get(name);
    if (!child.running) throw new SessionNotFoundError(`session ${name} is not running`);
    return child;
  }
}

class Child {
  running = true;
  exitCode?: number;
  spawnError?: Error;
  readonly meta = new Map<string, string>();
  /** `change`: new output or the end of the process. */
  readonly events = new EventEmitter();
  readonly exited: Promise<void>;

  constructor(
    readonly proc: ChildProcessWithoutNullStreams,
    readonly identity: SessionIdentity,
    readonly output: OutputBuffer,
  ) {
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString('utf8'));
      this.events.emit('change');
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    // Input to a process that has ended fails with EPIPE; nudge() reports the ended session instead.
    proc.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      const end = (code: number | null, sig: NodeJS.Signals | null) => {
        if (!this.running) return;
        this.running = false;
        // Like a shell's `$?`: 128 + the signal's number for a process ended by a signal.
        if (code !== null) this.exitCode = code;
        else if (sig !== null) this.exitCode = 128 + (constants.signals[sig] ?? 0);
        this.events.emit('change');
        resolve();
      };
      proc.on('exit', end);
      proc.on('error', (err) => {
        this.spawnError = err;
        if (proc.pid === undefined) end(null, null);
      });
    });
  }
}

/** The last lines of a process's output, bounded in lines and bytes; the unfinished line counts too. */
class OutputBuffer {
  private readonly lines: string[] = [];
  private partial = '';
  private bytes = 0;
  lastActivity = 0;

  constructor(
    private readonly maxLines: number,
    private readonly maxBytes: number,
  ) {}

  push(text: string): void {
    this.lastActivity = Date.now();
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) {
      this.lines.push(line);
      this.bytes += line.length + 1;
    }
    // A line that never ends is bounded too: its head goes.
    if (this.partial.length > this.maxBytes) this.partial = this.partial.slice(-this.maxBytes);
    while (this.lines.length > 0 && (this.lines.length > this.maxLines || this.bytes > this.maxBytes)) {
      this.bytes -= this.lines.shift()!.length + 1;
    }
  }

  render(): string {
    const all = this.partial === '' ? this.lines : [...this.lines, this.partial];
    return all.map(renderRawLine).join('\n');
  }
}

function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    // The group is gone: nothing to interrupt.
  }
}
