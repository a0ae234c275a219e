/**
 * An in-memory runtime for machine, actor and HTTP tests: no processes, no timers, every call recorded.
 * Programmable: a start can succeed, fail or die; a session dies on command; nudges are recorded and, by
 * default, answered like the mock agent (`echo: <text>` and its `/mock` directives, thinking included).
 * Sessions live in a FakeWorld, which a second provider can share to play a supervisor restart.
 */
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
import { lastLines } from './screen.ts';

/** How one start ends: ready (the default), died during start-up with a status, or failed with an error. */
export type FakeStartOutcome = { ready: true } | { diesWith: number } | { error: Error };

export interface FakeSession {
  name: string;
  cfg: StartConfig;
  identity?: SessionIdentity;
  running: boolean;
  exitCode?: number;
  pid: number;
  attached: boolean;
  lastActivity: number;
  /** Rendered output lines (the prompt included). */
  output: string[];
  /** Every nudge's text and every key sent, in order. */
  inputs: string[];
  meta: Map<string, string>;
  mode: 'idle' | 'thinking' | 'approving' | 'hung';
}

/** The sessions a fake provider runs on; share one between two providers to play a restart. */
export class FakeWorld {
  readonly sessions = new Map<string, FakeSession>();
  nextPid = 10_000;
}

export interface FakeRuntimeOptions {
  world?: FakeWorld;
  /** Decides each start (after the programmed outcomes of failNextStart). */
  onStart?: (name: string, cfg: StartConfig) => FakeStartOutcome | undefined;
  /** Answer nudges like the mock agent. Default true. */
  echo?: boolean;
  capabilities?: RuntimeCapabilities;
  /** The clock for lastActivity (ms since epoch). */
  now?: () => number;
  /** The ready prompt a started session shows. */
  prompt?: string;
}

export interface FakeCall {
  op: string;
  name?: string;
  args: unknown[];
}

export class FakeRuntimeProvider implements RuntimeProvider {
  readonly kind = 'fake';
  readonly capabilities: RuntimeCapabilities;
  readonly world: FakeWorld;
  /** Every call made to this provider, in order. */
  readonly calls: FakeCall[] = [];
  private readonly programmed = new Map<string, FakeStartOutcome[]>();
  private readonly echo: boolean;
  private readonly now: () => number;
  private readonly prompt: string;

  constructor(private readonly opts: FakeRuntimeOptions = {}) {
    this.world = opts.world ?? new FakeWorld();
    this.capabilities = opts.capabilities ?? { attach: true, activity: true, survivesRestart: true };
    this.echo = opts.echo ?? true;
    this.now = opts.now ?? Date.now;
    this.prompt = opts.prompt ?? '❯';
  }

  // --- knobs -------------------------------------------------------------------------------------------

  /** The next start of `name` ends with `outcome` (queued: several calls program several starts). */
  failNextStart(name: string, outcome: FakeStartOutcome): void {
    const list = this.programmed.get(name) ?? [];
    list.push(outcome);
    this.programmed.set(name, list);
  }

  /** The session's process ends now with `exitCode` (its record stays, like a dead tmux pane). */
  crash(name: string, exitCode = 1): void {
    const s = this.session(name);
    s.running = false;
    s.exitCode = exitCode;
    s.mode = 'idle';
  }

  /** Ends a think started by `/mock think`, as its timer would. */
  finishThinking(name: string): void {
    const s = this.session(name);
    if (s.mode !== 'thinking') return;
    this.say(s, 'echo: done thinking');
    this.idle(s);
  }

  setAttached(name: string, attached: boolean): void {
    this.session(name).attached = attached;
  }

  /** Output as the agent would print it (advances the activity time). */
  write(name: string, text: string): void {
    const s = this.session(name);
    s.output.push(...text.split('\n'));
    s.lastActivity = this.now();
  }

  /** Creates a session as if someone else had started it on the same runtime (no identity: foreign). */
  addForeign(name: string, identity?: SessionIdentity): void {
    const cfg: StartConfig = {
      command: '',
      workDir: '/',
      identity: identity ?? { sessionId: '', instanceToken: '', city: '' },
    };
    this.world.sessions.set(name, this.newSession(name, cfg, identity));
  }

  /** What was typed into the session. */
  inputs(name: string): string[] {
    return [...this.session(name).inputs];
  }

  // --- RuntimeProvider ---------------------------------------------------------------------------------

  async start(name: string, cfg: StartConfig, signal?: AbortSignal): Promise<void> {
    this.record('start', name, cfg);
    if (signal?.aborted) throw new RuntimeError(`session ${name}: start aborted`, { cause: signal.reason });
    const existing = this.world.sessions.get(name);
    if (existing?.running) throw new SessionExistsError(`session ${name} exists`);
    const outcome = this.programmed.get(name)?.shift() ?? this.opts.onStart?.(name, cfg) ?? { ready: true };
    if ('error' in outcome) throw outcome.error;
    if ('diesWith' in outcome) {
      this.world.sessions.delete(name);
      throw new SessionDiedDuringStartupError(
        `session ${name} exited with status ${outcome.diesWith} during start-up`,
      );
    }
    const s = this.newSession(name, cfg, { ...cfg.identity });
    this.world.sessions.set(name, s);
    if (this.echo) {
      this.say(s, `fake agent (session ${cfg.identity.sessionId})`);
      s.output.push(this.prompt);
    }
  }

  async stop(name: string): Promise<void> {
    this.record('stop', name);
    this.world.sessions.delete(name);
  }

  async interrupt(name: string): Promise<void> {
    this.record('interrupt', name);
    const s = this.world.sessions.get(name);
    if (s?.running) this.interrupted(s);
  }

  async observe(prefix = ''): Promise<Map<string, Observation>> {
    this.record('observe', undefined, prefix);
    const result = new Map<string, Observation>();
    for (const [name, s] of this.world.sessions) {
      if (!name.startsWith(prefix)) continue;
      const obs: Observation = {
        name,
        running: s.running,
        pid: s.pid,
        lastActivity: s.lastActivity,
        attached: s.attached,
      };
      if (s.exitCode !== undefined) obs.exitCode = s.exitCode;
      if (s.identity) obs.identity = { ...s.identity };
      result.set(name, obs);
    }
    return result;
  }

  async nudge(name: string, text: string): Promise<void> {
    this.record('nudge', name, text);
    const s = this.runningSession(name);
    s.inputs.push(text);
    s.lastActivity = this.now();
    if (this.echo) this.answer(s, text);
  }

  async sendKeys(name: string, ...keys: string[]): Promise<void> {
    this.record('sendKeys', name, ...keys);
    const s = this.runningSession(name);
    for (const key of keys) {
      s.inputs.push(key);
      if (!this.echo) continue;
      if (key === 'C-c' || key === 'Escape') this.interrupted(s);
      else if (s.mode === 'approving' && /^[123yn]$/.test(key)) {
        this.say(s, key === '1' || key === '2' || key === 'y' ? 'approved' : 'denied');
        this.idle(s);
      }
    }
  }

  async peek(name: string, lines: number): Promise<string> {
    this.record('peek', name, lines);
    return lastLines(this.session(name).output.join('\n').trimEnd(), lines);
  }

  async getMeta(name: string, key: string): Promise<string> {
    return this.session(name).meta.get(key) ?? '';
  }

  async setMeta(name: string, key: string, value: string): Promise<void> {
    this.record('setMeta', name, key, value);
    this.session(name).meta.set(key, value);
  }

  async removeMeta(name: string, key: string): Promise<void> {
    this.record('removeMeta', name, key);
    this.session(name).meta.delete(key);
  }

  attachCommand(name: string): string[] {
    return ['fake-attach', name];
  }

  async close(): Promise<void> {
    this.record('close');
  }

  // --- the mock agent's behaviour, without processes ----------------------------------------------------

  private answer(s: FakeSession, text: string): void {
    // The typed input shows after the prompt, as a terminal echoes it.
    if (s.output[s.output.length - 1] === this.prompt)
      s.output[s.output.length - 1] = `${this.prompt} ${text}`;
    else s.output.push(text);
    if (s.mode === 'hung') return;
    if (s.mode === 'approving') {
      this.say(s, /^[12y]/i.test(text) ? 'approved' : 'denied');
      return this.idle(s);
    }
    const [verb, arg] = text.startsWith('/mock ') ? text.trim().split(/\s+/).slice(1) : [];
    switch (verb) {
      case undefined:
        this.say(s, `echo: ${text}`);
        return this.idle(s);
      case 'think':
        s.mode = 'thinking';
        return this.say(s, 'thinking… (esc to interrupt)');
      case 'approve':
        s.mode = 'approving';
        for (const line of [
          `● ${arg ?? 'Bash'}()`,
          'This command requires approval',
          'Do you want to proceed?',
        ]) {
          this.say(s, line);
        }
        return this.say(s, '❯ 1. Yes');
      case 'crash':
        return this.crash(s.name, arg === undefined ? 1 : Number(arg));
      case 'exit':
        return this.crash(s.name, 0);
      case 'hang':
        s.mode = 'hung';
        return;
      default:
        this.say(s, `mock: unknown directive "${verb}"`);
        return this.idle(s);
    }
  }

  private interrupted(s: FakeSession): void {
    if (s.mode !== 'thinking') return;
    this.say(s, 'interrupted');
    this.idle(s);
  }

  private idle(s: FakeSession): void {
    s.mode = 'idle';
    s.output.push(this.prompt);
  }

  private say(s: FakeSession, line: string): void {
    s.output.push(line);
    s.lastActivity = this.now();
  }

  private newSession(name: string, cfg: StartConfig, identity: SessionIdentity | undefined): FakeSession {
    const s: FakeSession = {
      name,
      cfg,
      running: true,
      pid: this.world.nextPid++,
      attached: false,
      lastActivity: this.now(),
      output: [],
      inputs: [],
      meta: new Map(),
      mode: 'idle',
    };
    if (identity) s.identity = identity;
    return s;
  }

  private session(name: string): FakeSession {
    const s = this.world.sessions.get(name);
    if (!s) throw new SessionNotFoundError(`no session ${name}`);
    return s;
  }

  private runningSession(name: string): FakeSession {
    const s = this.session(name);
    if (!s.running) throw new SessionNotFoundError(`session ${name} is not running`);
    return s;
  }

  private record(op: string, name?: string, ...args: unknown[]): void {
    this.calls.push(name === undefined ? { op, args } : { op, name, args });
  }
}
