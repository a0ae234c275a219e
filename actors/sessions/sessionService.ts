/**
 * One city's sessions: the `SessionApi` the routes call. Mutations are pure session decisions on the city
 * log (sessions are beads), runtime effects run here or on the reconciler, and the async operations
 * (create, message, submit) answer 202 once their acceptance is durable and finish with exactly one
 * terminal event on the city stream, also across a supervisor restart.
 */
import type { CityConfig } from '../../schemas/cityToml.ts';
import { ConflictError, UnavailableError } from '../runtime/errors.ts';
import { newRequestId } from './requestIds.ts';
import { requestHash } from '../beads/index.ts';
import {
  checkSuspend,
  decideClose,
  decideDrain,
  decideKilled,
  decidePermissionMode,
  decideRetitle,
  decideSuspended,
  decideWake,
} from '../../machines/sessions/decide.ts';
import { decideCreateSession } from '../../machines/sessions/decideCreate.ts';
import { decideFinishRequest } from '../../machines/sessions/decideRequests.ts';
import { sessionOf, type SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import { DEFAULT_SESSION_THRESHOLDS, type SessionThresholds } from '../../machines/sessions/thresholds.ts';
import type { RuntimeProvider } from './runtime/provider.ts';
import { SessionBook } from './sessionBook.ts';
import type { SessionServiceOptions } from './sessionServiceOptions.ts';
import { SessionQueries } from './sessionQueries.ts';
import { SessionReconciler } from './sessionReconciler.ts';
import { SessionRequests } from './sessionRequests.ts';
import { sessionView } from './sessionView.ts';
import { agentStart, findAgent, type AgentStart } from './agentStart.ts';
import { agentEnvOf, LiveRerun } from './upCommands.ts';
import { mintSessionKey, resolveTemplate, TRANSPORT_KEY, type SessionTemplate } from './templates.ts';
import type {
  Accepted,
  MutationContext,
  SessionApi,
  SessionCreateInput,
  SessionListQuery,
  SessionPage,
  SessionView,
  SubmitIntent,
} from './sessionApi.ts';

/** Metadata of a keyed create: the request id and event cursor of its first 202, answered to a retry. */
const ACCEPT_REQUEST = 'gc.accept_request';
const ACCEPT_CURSOR = 'gc.accept_cursor';

export type { SessionServiceOptions } from './sessionServiceOptions.ts';

export class SessionService implements SessionApi {
  readonly book: SessionBook;
  readonly reconciler: SessionReconciler;
  readonly thresholds: SessionThresholds;
  readonly #now: () => number;
  readonly #queries: SessionQueries;
  readonly #requests: SessionRequests;
  #stopped = false;
  #config: CityConfig;
  readonly #live: LiveRerun;
  /**
   * Asked when a message or submit names no session: the agent layer materialises a configured
   * `on_demand` named session here (answers undefined when the name is not one).
   */
  materialize: (target: string) => Promise<SessionRecord | undefined> = () => Promise.resolve(undefined);

  constructor(private readonly opts: SessionServiceOptions) {
    this.#config = opts.config;
    this.thresholds = { ...DEFAULT_SESSION_THRESHOLDS, ...opts.thresholds };
    this.#now = opts.now ?? Date.now;
    this.book = new SessionBook(opts.store, (bead) => ({
      ...sessionView(sessionOf(bead), this.reconciler.seen.get(sessionOf(bead).sessionName)),
    }));
    this.reconciler = new SessionReconciler({
      city: opts.city,
      book: this.book,
      runtime: opts.runtime,
      thresholds: this.thresholds,
      now: this.#now,
      logger: opts.logger,
      env: opts.env ?? {},
      ...(opts.hookSettings ? { hookSettings: opts.hookSettings } : {}),
      ...(opts.setupEnv ? { setupEnv: opts.setupEnv } : {}),
      config: () => this.#config,
    });
    this.#live = new LiveRerun((s) => ({ ...opts.env, ...agentEnvOf(s), ...opts.setupEnv }), opts.logger);
    this.#queries = new SessionQueries(this.book, this.reconciler, opts.runtime, opts.logger, opts.city);
    this.#requests = new SessionRequests(this, {
      city: opts.city,
      logger: opts.logger,
      now: this.#now,
      stopping: () => this.#stopped,
    });
  }

  /** The city's config as sessions read it (templates); the agent layer replaces it after an edit. */
  get config(): CityConfig {
    return this.#config;
  }

  /**
   * Takes a new city config (an edit through the API or by hand): its templates, and its thresholds when
   * the service was given {@link SessionServiceOptions.thresholdsOf}. A bad threshold value keeps the
   * running ones (validate names it); a new tick re-times the reconciler. An agent's changed `session_live`
   * runs in its running sessions now, as upstream's (no restart).
   */
  setConfig(config: CityConfig): void {
    this.#config = config;
    void this.#live.apply(this.book.openSessions(), config);
    if (!this.opts.thresholdsOf) return;
    let next: SessionThresholds;
    try {
      next = { ...DEFAULT_SESSION_THRESHOLDS, ...this.opts.thresholdsOf(config) };
    } catch (err) {
      this.opts.logger.warn({ err, city: this.opts.city }, 'session thresholds kept');
      return;
    }
    const tick = this.thresholds.tickMs;
    // One object, shared with the reconciler and the requests: they read the new values from now on.
    Object.assign(this.thresholds, next);
    if (next.tickMs !== tick) this.reconciler.retime();
  }

  /**
   * A session the agent reconciler wants (a pool instance, a named session): created like an API create
   * but without a request to answer; `instance` becomes its alias. Resolves with the new session.
   */
  async createFor(template: string, instance: string, origin: 'ephemeral' | 'named'): Promise<SessionRecord> {
    this.#open();
    const t = resolveTemplate(this.#config, 'agent', template);
    const sessionKey = mintSessionKey(t);
    const start = await this.#agentStart(t, instance);
    const created = await this.book.decide((m, c) =>
      decideCreateSession(
        m,
        {
          template: t.name,
          provider: t.provider,
          title: instance,
          alias: instance,
          workDir: start.workDir,
          command: start.command,
          origin,
          ...(sessionKey ? { sessionKey } : {}),
          metadata: {
            agent_name: instance,
            ...(t.transport ? { [TRANSPORT_KEY]: t.transport } : {}),
            ...start.metadata,
          },
        },
        c,
      ),
    );
    this.reconciler.poke();
    return created;
  }

  /** An agent's start settings (work_dir, command variables, prompt); the city's defaults for others. */
  async #agentStart(t: SessionTemplate, instance: string): Promise<AgentStart> {
    const agent = t.kind === 'agent' ? findAgent(this.#config, t.name) : undefined;
    if (!agent) return { workDir: this.opts.path, command: t.command, metadata: {} };
    return agentStart(
      this.opts.path,
      this.#config,
      agent,
      instance,
      t,
      new Date(this.#now()),
      this.sessionEnv,
    );
  }

  get runtime(): RuntimeProvider {
    return this.opts.runtime;
  }

  /** The extra environment every session process gets (read by the transcript locator: GC_MOCK_LOG_DIR). */
  get sessionEnv(): Readonly<Record<string, string>> {
    return this.opts.env ?? {};
  }

  get index(): number {
    return this.opts.store.index;
  }

  /**
   * Starts the reconciler after answering what a previous process left open: a message or submit
   * accepted but not confirmed delivered fails (its delivery is unknown and is never repeated).
   */
  async startService(): Promise<void> {
    for (const s of this.book.openSessions()) {
      for (const r of s.requests) {
        await this.book.decide((m, ctx) =>
          decideFinishRequest(
            m,
            s.id,
            r.id,
            {
              ok: false,
              code: `${r.op}_failed`,
              message: 'the supervisor restarted before delivery was confirmed',
            },
            this.#now(),
            ctx,
          ),
        );
      }
    }
    this.reconciler.start();
  }

  /**
   * The city stops for good: no more starts, then every session process the city's runtime holds (orphans
   * included) is interrupted, given `shutdownTimeoutMs` to end, and the rest stopped, process tree and all;
   * a tmux server with no session left exits. Each running session of the book records `session.stopped`
   * (killed: the next start restarts it without counting a crash).
   */
  async endSessions(): Promise<void> {
    this.#stopped = true;
    await this.reconciler.stop();
    await this.#requests.settled();
    const running = async () =>
      [...(await this.opts.runtime.observe())].filter(([, o]) => o.running).map(([name]) => name);
    const names = await running();
    await Promise.all(names.map((name) => this.opts.runtime.interrupt(name).catch(() => undefined)));
    const deadline = this.#now() + this.thresholds.shutdownTimeoutMs;
    let left = names;
    while (left.length > 0 && this.#now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      left = await running();
    }
    // Then every session it interrupted and all the runtime still holds, running or a dead pane tmux keeps
    // (remain-on-exit: it kept the city's tmux server up).
    const held = (await this.opts.runtime.observe().catch(() => new Map<string, unknown>())).keys();
    await Promise.all(
      [...new Set([...names, ...held])].map((n) => this.opts.runtime.stop(n).catch(() => {})),
    );
    for (const s of this.book.openSessions()) {
      if (!names.includes(s.sessionName)) continue;
      await this.book
        .decide((m, c) => decideKilled(m, s.id, c), 'gc')
        .catch((err: unknown) =>
          this.opts.logger.warn({ err, session: s.id }, 'recording session.stopped failed'),
        );
    }
  }

  async stopService(): Promise<void> {
    this.#stopped = true;
    await this.reconciler.stop();
    await this.#requests.settled();
    await this.opts.runtime.close();
  }

  list(query: SessionListQuery): Promise<SessionPage> {
    return this.#queries.list(query);
  }

  get(id: string, options: { peek?: boolean; peekLines?: number } = {}): Promise<SessionView> {
    return this.#queries.get(id, options);
  }

  async create(input: SessionCreateInput, ctx: MutationContext): Promise<Accepted> {
    this.#open();
    {
      const template = resolveTemplate(this.#config, input.kind, input.name);
      const requestId = newRequestId();
      const cursor = this.index;
      // Kept in the log with the session, so a retry after a restart or a failover finds the first 202.
      const idempotency = ctx.idempotencyKey
        ? { key: `session-create:${ctx.idempotencyKey}`, hash: requestHash(input) }
        : undefined;
      const sessionKey = mintSessionKey(template);
      // `session_name` is upstream's deprecated spelling of alias.
      const alias = input.alias ?? (input as { session_name?: string }).session_name;
      const start = await this.#agentStart(template, alias ?? template.name);
      const metadata: Record<string, string> = { ...start.metadata };
      if (template.kind === 'provider') metadata['gc.kind'] = 'provider';
      if (template.transport) metadata[TRANSPORT_KEY] = template.transport;
      if (input.message) metadata['gc.first_message'] = input.message;
      if (input.options && Object.keys(input.options).length > 0) {
        metadata['template_overrides'] = JSON.stringify(input.options);
      }
      if (input.project_id) metadata['mc_project_id'] = input.project_id;
      if (idempotency) {
        metadata[ACCEPT_REQUEST] = requestId;
        metadata[ACCEPT_CURSOR] = String(cursor);
      }
      const made = await this.book.decide(
        (m, c) =>
          decideCreateSession(
            m,
            {
              template: template.name,
              provider: template.provider,
              title: input.title || template.name,
              ...(alias ? { alias } : {}),
              workDir: start.workDir,
              command: start.command,
              ...(sessionKey ? { sessionKey } : {}),
              requestId,
              metadata,
              ...(idempotency ? { idempotency } : {}),
            },
            c,
          ),
        ctx.actor,
      );
      const meta = this.opts.store.model.beads.get(made.id)?.bead.metadata;
      const firstRequest = meta?.[ACCEPT_REQUEST];
      if (idempotency && firstRequest && firstRequest !== requestId) {
        // A retry of a keyed create: the first one's answer again, nothing new written.
        return { status: 'accepted', request_id: firstRequest, event_cursor: meta?.[ACCEPT_CURSOR] ?? '0' };
      }
      this.reconciler.poke();
      return { status: 'accepted', request_id: requestId, event_cursor: String(cursor) };
    }
  }

  message(id: string, text: string, ctx: MutationContext): Promise<Accepted> {
    this.#open();
    return this.#requests.send(id, text, { id: '', op: 'message' }, ctx);
  }

  submit(id: string, text: string, intent: SubmitIntent, ctx: MutationContext): Promise<Accepted> {
    this.#open();
    return this.#requests.send(id, text, { id: '', op: 'submit', intent }, ctx);
  }

  async patch(
    id: string,
    change: { title?: string; alias?: string },
    ctx: MutationContext,
  ): Promise<SessionView> {
    const s = this.book.resolve(id);
    const after = await this.book.decide((m, c) => decideRetitle(m, s.id, change, c), ctx.actor);
    return sessionView(after, this.reconciler.seen.get(after.sessionName));
  }

  rename(id: string, title: string, ctx: MutationContext): Promise<SessionView> {
    return this.patch(id, { title }, ctx);
  }

  async setPermissionMode(id: string, mode: string, ctx: MutationContext): Promise<SessionView> {
    const s = this.book.resolve(id);
    const after = await this.book.decide((m, c) => decidePermissionMode(m, s.id, mode, c), ctx.actor);
    return sessionView(after, this.reconciler.seen.get(after.sessionName));
  }

  /** Stops the current turn: Ctrl-C to the agent. A session that is not running is a conflict. */
  async stop(id: string, _ctx?: MutationContext): Promise<string> {
    const s = this.book.resolve(id);
    if (!(await this.#running(s))) throw new ConflictError(`session ${s.id} is not running`);
    await this.opts.runtime.interrupt(s.sessionName);
    return s.id;
  }

  async kill(id: string, ctx: MutationContext): Promise<string> {
    const s = this.book.resolve(id);
    if (s.closed) throw new ConflictError(`session ${s.id} is closed`);
    await this.reconciler.exclusive(s.id, async () => {
      await this.book.decide((m, c) => decideKilled(m, s.id, c), ctx.actor);
      await this.opts.runtime.stop(s.sessionName);
      this.reconciler.stopped(s.sessionName);
    });
    return s.id;
  }

  async suspend(id: string, ctx: MutationContext): Promise<void> {
    const s = this.book.resolve(id);
    const checked = checkSuspend(this.opts.store.model, s.id);
    if (!checked.ok) throw new ConflictError(checked.rejection.message);
    await this.reconciler.exclusive(s.id, async () => {
      const wasRunning = await this.#drainAndStop(this.book.find(s.id) ?? s, ctx);
      await this.book.decide((m, c) => decideSuspended(m, s.id, this.#now(), wasRunning, c), ctx.actor);
    });
  }

  async wake(id: string, ctx: MutationContext): Promise<string> {
    const s = this.book.resolve(id);
    await this.book.decide((m, c) => decideWake(m, s.id, c), ctx.actor);
    this.reconciler.poke();
    return s.id;
  }

  async close(id: string, options: { delete?: boolean }, ctx: MutationContext): Promise<void> {
    const s = this.book.resolve(id);
    if (s.closed) {
      if (options.delete) await this.opts.store.delete(s.id, { actor: ctx.actor });
      return;
    }
    await this.reconciler.exclusive(s.id, async () => {
      const wasRunning = await this.#drainAndStop(this.book.find(s.id) ?? s, ctx);
      await this.book.decide((m, c) => decideClose(m, s.id, this.#now(), wasRunning, c), ctx.actor);
    });
    if (options.delete) await this.opts.store.delete(s.id, { actor: ctx.actor });
  }

  /**
   * A graceful stop: `draining` (for an active session), Ctrl-C, up to the drain timeout for the process
   * to end by itself, then the whole process tree is stopped. Answers whether it was running.
   */
  async #drainAndStop(s: SessionRecord, ctx: MutationContext): Promise<boolean> {
    const running = await this.#running(s);
    if (!running) {
      await this.opts.runtime.stop(s.sessionName).catch(() => undefined);
      this.reconciler.stopped(s.sessionName);
      return false;
    }
    if (s.state === 'active') await this.book.decide((m, c) => decideDrain(m, s.id, c), ctx.actor);
    await this.opts.runtime.interrupt(s.sessionName).catch(() => undefined);
    const deadline = this.#now() + this.thresholds.drainTimeoutMs;
    while (this.#now() < deadline) {
      const seen = await this.reconciler.observe();
      if (!seen.get(s.sessionName)?.running) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await this.opts.runtime.stop(s.sessionName);
    this.reconciler.stopped(s.sessionName);
    return true;
  }

  async #running(s: SessionRecord): Promise<boolean> {
    const seen = await this.reconciler.observe();
    const rt = seen.get(s.sessionName);
    return rt?.running === true && (rt.token === undefined || rt.token === s.instanceToken);
  }

  #open(): void {
    if (this.#stopped) throw new UnavailableError(`sessions of city ${this.opts.city} are stopping`);
  }
}
