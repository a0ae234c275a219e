/**
 * The per-city session reconciler: on its tick (and whenever a mutation pokes it) it observes every
 * runtime session with one batched call, asks the pure planner what to do, and does it: starts (after a
 * durable pre-start commit), adoptions after a restart, deaths (crash accounting, back-off, quarantine),
 * idle stops, the end of a quarantine, and creates that waited too long. Each effect runs on its own and
 * pokes the next pass when it ends; a session has at most one effect in flight.
 */
import { sessionIdentityEnv, withSessionPath } from './sessionEnv.ts';
import { randomUUID } from 'node:crypto';
import { randomHex } from '../runtime/randomHex.ts';
import type { Logger } from '../runtime/logger.ts';
import {
  planTick,
  needsObservation,
  type SeenRuntime,
  type SessionAction,
} from '../../machines/sessions/plan.ts';
import type { SessionThresholds } from '../../machines/sessions/thresholds.ts';
import {
  decideBeginStart,
  decideDied,
  decideIdleKilled,
  decideQuarantineOver,
  decideStartFailed,
  decideStarted,
} from '../../machines/sessions/decide.ts';
import { K, type SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import { SessionExistsError, type RuntimeProvider } from './runtime/provider.ts';
import type { SessionBook } from './sessionBook.ts';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  launchCommand,
  MAX_INLINE_PROMPT,
  promptArgument,
  sessionPreset,
  startPromptOf,
  startupNudge,
  TRANSPORT_KEY,
} from './templates.ts';
import { builtinPresets } from './runtime/presets.ts';
import type { CityConfig } from '../../schemas/cityToml.ts';
import { agentEnvOf, runUpCommands } from './upCommands.ts';

export interface ReconcilerDeps {
  city: string;
  book: SessionBook;
  runtime: RuntimeProvider;
  thresholds: SessionThresholds;
  now: () => number;
  logger: Logger;
  /** Extra environment for every session (e.g. where the mock agent writes its logs). */
  env: Record<string, string>;
  /** gc's hook settings file (`<city>/.gc/settings.json`) when it was installed: a CLI that takes one gets it. */
  hookSettings?: string;
  /** What a session's setup commands get beside its environment (`GC_TMUX_SOCKET` on tmux). */
  setupEnv?: Record<string, string>;
  /** The city's current config: a session starts with its provider's preset there (default: the builtin). */
  config?: () => CityConfig;
}

export class SessionReconciler {
  readonly #busy = new Set<string>();
  readonly #effects = new Set<Promise<void>>();
  #seen = new Map<string, SeenRuntime>();
  #seenAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  /** Starts in flight: `maxWakesPerTick` bounds them across passes, not only within one. */
  #starting = 0;
  /** Sessions that must not start yet (the agent layer's start waves); asked once per pass. */
  held: () => ReadonlySet<string> = () => new Set();
  /** Tick durations (ms) of the last passes, for the bench. */
  readonly tickMs: number[] = [];

  constructor(private readonly deps: ReconcilerDeps) {}

  /** What the runtime was last seen doing, by runtime session name. */
  get seen(): ReadonlyMap<string, SeenRuntime> {
    return this.#seen;
  }

  /** True while an effect (start, stop, …) runs for the session. */
  isBusy(id: string): boolean {
    return this.#busy.has(id);
  }

  start(): void {
    this.#timer = setInterval(() => this.poke(), this.deps.thresholds.tickMs);
    this.#timer.unref();
    this.poke();
  }

  /** Ticks at the thresholds' (new) `tickMs` from now on; nothing before the start or after the stop. */
  retime(): void {
    if (this.#timer === undefined || this.#stopped) return;
    clearInterval(this.#timer);
    this.#timer = setInterval(() => this.poke(), this.deps.thresholds.tickMs);
    this.#timer.unref();
  }

  /** Runs a pass now (or right after the one running). */
  poke(): void {
    if (this.#stopped) return;
    if (this.#pass) {
      this.#again = true;
      return;
    }
    this.#pass = this.#runPass()
      .catch((err: unknown) =>
        this.deps.logger.error({ err, city: this.deps.city }, 'session reconcile failed'),
      )
      .finally(() => {
        this.#pass = undefined;
        if (this.#again) {
          this.#again = false;
          this.poke();
        }
      });
  }

  /** Runs one pass and waits for it (tests, the bench). */
  async tick(): Promise<void> {
    while (this.#pass) await this.#pass;
    this.poke();
    await this.#current();
  }

  #current(): Promise<void> {
    return this.#pass ?? Promise.resolve();
  }

  /**
   * Observes now unless an observation younger than `maxAgeMs` exists (reads use the tick's; a read after
   * a mutation asks for a fresh one).
   */
  async observe(maxAgeMs = 0): Promise<ReadonlyMap<string, SeenRuntime>> {
    if (this.deps.now() - this.#seenAt <= maxAgeMs) return this.#seen;
    const observed = await this.deps.runtime.observe();
    const seen = new Map<string, SeenRuntime>();
    for (const [name, o] of observed) {
      const rt: SeenRuntime = { running: o.running, lastActivity: o.lastActivity };
      if (o.identity?.city === this.deps.city) rt.token = o.identity.instanceToken;
      if (o.exitCode !== undefined) rt.exitCode = o.exitCode;
      seen.set(name, rt);
    }
    this.#seen = seen;
    this.#seenAt = this.deps.now();
    return seen;
  }

  /** Records that the runtime session `name` was stopped, so reads before the next observation say so. */
  stopped(name: string): void {
    const rt = this.#seen.get(name);
    if (rt) this.#seen.set(name, { ...rt, running: false });
  }

  /** Marks a session busy while `effect` runs (API stop/close/suspend do their runtime work here too). */
  async exclusive<T>(id: string, effect: () => Promise<T>, opts: { poke?: boolean } = {}): Promise<T> {
    while (this.#busy.has(id)) await new Promise((r) => setTimeout(r, 20));
    this.#busy.add(id);
    try {
      return await effect();
    } finally {
      this.#busy.delete(id);
      // A delivery changes nothing the reconciler decides on: no pass (and no runtime look) beside the agent.
      if (opts.poke !== false) this.poke();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#pass;
    await Promise.allSettled([...this.#effects]);
  }

  async #runPass(): Promise<void> {
    const started = performance.now();
    if (!needsObservation(this.deps.book.openSessions())) return;
    const seen = await this.observe();
    // Read again after the observation: a start that finished meanwhile must not be planned as an adoption.
    const actions = planTick({
      sessions: this.deps.book.openSessions(),
      seen,
      busy: this.#busy,
      held: this.held(),
      starting: this.#starting,
      now: this.deps.now(),
      thresholds: this.deps.thresholds,
    });
    for (const action of actions) this.#launch(action);
    this.tickMs.push(performance.now() - started);
    if (this.tickMs.length > 1000) this.tickMs.splice(0, 500);
  }

  #launch(action: SessionAction): void {
    this.#busy.add(action.id);
    const effect = this.#do(action)
      .catch((err: unknown) =>
        this.deps.logger.warn(
          { err, city: this.deps.city, session: action.id, action: action.kind },
          'session effect failed',
        ),
      )
      .finally(() => {
        this.#busy.delete(action.id);
        this.#effects.delete(effect);
        this.poke();
      });
    this.#effects.add(effect);
  }

  async #do(action: SessionAction): Promise<void> {
    const { book, thresholds: t } = this.deps;
    const now = this.deps.now();
    switch (action.kind) {
      case 'start':
        this.#starting++;
        try {
          return await this.#start(action.id);
        } finally {
          this.#starting--;
        }
      case 'adopt':
        await book.decide((m, ctx) => decideStarted(m, action.id, now, book.snapshotOf, ctx));
        return;
      case 'died': {
        const detail =
          action.exitCode !== undefined ? `exited with status ${action.exitCode}` : 'runtime gone';
        const s = book.find(action.id);
        // A dead pane kept for forensics is removed, so the next start can take the name.
        if (s) await this.deps.runtime.stop(s.sessionName).catch(() => undefined);
        await book.decide((m, ctx) => decideDied(m, action.id, now, t, ctx, detail));
        return;
      }
      case 'idle': {
        const s = book.find(action.id);
        if (s) {
          await this.deps.runtime.stop(s.sessionName);
          this.stopped(s.sessionName);
        }
        await book.decide((m, ctx) => decideIdleKilled(m, action.id, now, ctx));
        return;
      }
      case 'quarantine-over':
        await book.decide((m, ctx) => decideQuarantineOver(m, action.id, ctx));
        return;
      case 'create-timeout':
        await book.decide((m, ctx) =>
          decideStartFailed(m, action.id, `session did not start within ${t.createWaitMs} ms`, now, t, ctx),
        );
        return;
    }
  }

  /** Pre-start commit, start under the start-up deadline, then `active` (or the failure accounted). */
  async #start(id: string): Promise<void> {
    const { book, runtime, thresholds: t } = this.deps;
    const token = randomHex(16);
    const s = await book.decide((m, ctx) => decideBeginStart(m, id, token, this.deps.now(), ctx));
    const { firstStart, wakeKey, hooked, ...cfg } = this.#startConfig(s, token);
    try {
      await runtime.start(s.sessionName, cfg, AbortSignal.timeout(t.startupTimeoutMs));
    } catch (err) {
      // Never stop a session another token runs: only ours (a start that failed half-way) is cleaned up.
      if (!(err instanceof SessionExistsError)) await runtime.stop(s.sessionName).catch(() => undefined);
      const message = (err as Error).message;
      const freshKey = s.meta[K.sessionKey] ? randomUUID() : undefined;
      await book.decide((m, ctx) => decideStartFailed(m, id, message, this.deps.now(), t, ctx, freshKey));
      return;
    }
    // An ACP agent takes its first message as its first prompt, not as an argument.
    if (cfg.firstPrompt) await runtime.nudge(s.sessionName, cfg.firstPrompt).catch(() => undefined);
    this.#seen.set(s.sessionName, { running: true, lastActivity: this.deps.now(), token });
    // The ACP agent's session id, so the next start (a restart, a wake) reattaches it.
    const acpSession = runtime.acpSession?.(s.sessionName);
    const extra: Record<string, string> = acpSession ? { [K.acpSessionId]: acpSession.id } : {};
    if (wakeKey) extra[K.sessionKey] = wakeKey;
    await book.decide((m, ctx) => decideStarted(m, id, this.deps.now(), book.snapshotOf, ctx, extra));
    // Upstream's order once it is up: session_setup (then its script), the nudge, then session_live.
    const setupEnv = { ...cfg.env, ...this.deps.setupEnv };
    await runUpCommands(s, 'setup', setupEnv, this.deps.logger);
    // The prompt a provider does not take as an argument, and the agent's nudge: typed once it is up.
    const nudge = firstStart ? startupNudge(s.meta, hooked) : undefined;
    if (nudge) await runtime.nudge(s.sessionName, nudge).catch(() => undefined);
    await runUpCommands(s, 'live', setupEnv, this.deps.logger);
  }

  #startConfig(s: SessionRecord, token: string) {
    const preset = this.deps.config ? sessionPreset(this.deps.config(), s) : builtinPresets()[s.provider];
    // `wake_mode = "fresh"`: every wake after the first is a first start, under a new conversation id.
    const fresh = s.meta[K.wakeMode] === 'fresh' && Boolean(s.meta[K.creationCompleteAt]);
    const firstStart = !s.meta[K.creationCompleteAt] || s.meta[K.freshStart] === '1' || fresh;
    const wakeKey = fresh && s.meta[K.sessionKey] ? randomUUID() : undefined;
    const sessionKey = wakeKey ?? s.meta[K.sessionKey];
    const firstMessage = s.meta['gc.first_message'];
    const acp = s.meta[TRANSPORT_KEY] === 'acp';
    // Upstream: a CLI that runs gc's hooks gets no prompt in its argv; its SessionStart hook (`gc prime
    // --hook`) prints it.
    const hooked = Boolean(preset?.supportsHooks && preset.settingsFlag && this.deps.hookSettings && !acp);
    const prompt = hooked ? undefined : startPromptOf(s.meta);
    const promptFile =
      firstStart && prompt
        ? longPromptFile(s, promptArgument(prompt, acp ? undefined : firstMessage))
        : undefined;
    const command = launchCommand(s.command, preset, {
      ...(sessionKey ? { sessionKey } : {}),
      firstStart,
      ...(firstMessage && !acp ? { firstMessage } : {}),
      ...(prompt ? { prompt } : {}),
      ...(promptFile ? { promptFile } : {}),
      ...(this.deps.hookSettings && !acp ? { settingsFile: this.deps.hookSettings } : {}),
    });
    return {
      firstStart,
      wakeKey,
      hooked,
      command: withSessionPath(command, this.deps.env),
      workDir: s.workDir,
      env: {
        ...this.deps.env,
        ...agentEnvOf(s),
        GC_SESSION_ID: s.id,
        GC_SESSION_NAME: s.sessionName,
        GC_ALIAS: s.alias,
        GC_TEMPLATE: s.template,
        GC_SESSION_ORIGIN: 'manual',
        GC_AGENT: s.alias || s.sessionName,
        GC_RUNTIME_EPOCH: String(s.generation),
        GC_PROVIDER: s.provider,
        GC_DIR: s.workDir,
        ...sessionIdentityEnv(s),
      },
      identity: { sessionId: s.id, instanceToken: token, city: this.deps.city },
      ...(preset?.readyPromptPrefix ? { readyPromptPrefix: preset.readyPromptPrefix } : {}),
      ...(preset?.readyDelayMs && !preset.readyPromptPrefix ? { readyDelayMs: preset.readyDelayMs } : {}),
      ...(acp ? { transport: 'acp' as const } : {}),
      ...(acp && firstStart && firstMessage ? { firstPrompt: firstMessage } : {}),
      ...(acp && !firstStart && s.meta[K.acpSessionId] ? { acpSessionId: s.meta[K.acpSessionId] } : {}),
    };
  }
}

/**
 * Where a prompt too long for the command line is written (upstream's `<workdir>/.gc/tmp/prompt-*.txt`),
 * or undefined for a short one. Effects: writes the file.
 */
function longPromptFile(s: SessionRecord, text: string): string | undefined {
  if (text.length <= MAX_INLINE_PROMPT || !s.workDir) return undefined;
  const dir = join(s.workDir, '.gc', 'tmp');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `prompt-${s.sessionName}.txt`);
  writeFileSync(file, text);
  return file;
}
