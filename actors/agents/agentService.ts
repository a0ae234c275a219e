/**
 * One city's agents: the `AgentApi` the routes call. Agents are the `[[agent]]` templates of `city.toml`;
 * their running instances are sessions (pool instances and named sessions carry the instance name as their
 * alias). On the sessions' tick it computes the awake set (pure, machines/agents/awake.ts): it creates the
 * sessions pools and `always` named sessions need, closes a shrinking pool's idle surplus, and holds the
 * starts of agents whose dependencies are not running (start waves). Edits of agents go through the one
 * city.toml writer and are recorded as `agent.config_changed`.
 */
import { exec } from 'node:child_process';
import { NotFoundError } from '../runtime/errors.ts';
import type { Logger } from '../runtime/logger.ts';
import type { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import type { ActorObserver } from '../runtime/actorObserver.ts';
import { AgentActorReporter } from './agentActors.ts';
import type { BeadStore } from '../beads/index.ts';
import type { SessionService } from '../sessions/index.ts';
import { awakeSet, waitingOnDependencies, type AgentSessionFacts } from '../../machines/agents/awake.ts';
import { templateOf, type AgentTemplate } from '../../machines/agents/templates.ts';
import { routedDemand } from '../../machines/agents/routedDemand.ts';
import type { SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import type { SeenRuntime } from '../../machines/sessions/plan.ts';
import { SessionTranscripts } from '../sessions/index.ts';
import { configWriterFor, settlePendingWrite } from '../config/index.ts';
import type {
  AgentAction,
  AgentApi,
  AgentCreateInput,
  AgentListQuery,
  AgentOutput,
  AgentPage,
  AgentUpdateInput,
  AgentView,
} from './agentApi.ts';
import { AGENT_NAME, AgentEdits } from './agentEdits.ts';
import { activeBead, agentViews } from './agentViews.ts';
import { releaseHeld } from './releaseHeld.ts';

export interface AgentServiceOptions {
  city: string;
  path: string;
  store: BeadStore;
  sessions: SessionService;
  log: LogRuntime;
  logger: Logger;
  now?: () => number;
  /** A scale check that runs longer is ignored for that tick. */
  scaleCheckTimeoutMs?: number;
  /** The inspection hub: when set, the agents are shown to it as actors of the agent machine. */
  observer?: ActorObserver;
}

export class AgentService implements AgentApi {
  readonly #edits: AgentEdits;
  readonly #transcripts: SessionTranscripts;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;
  #stopped = false;
  /** The last answer of each pool's scale check. */
  readonly #demand = new Map<string, number>();
  readonly #reporter: AgentActorReporter | undefined;

  constructor(private readonly opts: AgentServiceOptions) {
    this.#edits = new AgentEdits({
      city: opts.city,
      sessions: opts.sessions,
      log: opts.log,
      logger: opts.logger,
      writer: configWriterFor(opts.path, opts.city),
      templates: () => this.templates(),
      poke: () => this.poke(),
      report: () => this.#reportAgents(),
    });
    this.#transcripts = new SessionTranscripts(opts.sessions);
    this.#now = opts.now ?? Date.now;
    this.#reporter = opts.observer ? new AgentActorReporter(opts.city, opts.observer) : undefined;
  }

  get index(): number {
    return this.opts.store.index;
  }

  waitForIndex(index: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.opts.store.waitForIndex(index, timeoutMs, signal);
  }

  templates(): AgentTemplate[] {
    return this.opts.sessions.config.agents.filter((a) => AGENT_NAME.test(a.name)).map(templateOf);
  }

  async startService(): Promise<void> {
    await settlePendingWrite(this.opts.path, this.opts.log.journal);
    const sessions = this.opts.sessions;
    sessions.materialize = (target) => this.#materialize(target);
    sessions.reconciler.held = () => waitingOnDependencies(this.templates(), this.#facts());
    this.#timer = setInterval(() => this.poke(), sessions.thresholds.tickMs);
    this.#timer.unref();
    this.poke();
  }

  async stopService(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#pass;
    this.#reporter?.stop();
  }

  /**
   * Shows the agents as they are now to the inspection hub. From the sessions' last look at the runtime
   * (their tick keeps it fresh), so it costs no runtime call: a walk over the templates and open sessions.
   */
  #reportAgents(): void {
    if (!this.#reporter || this.#stopped) return;
    this.#reporter.refresh(this.#viewsFrom(this.opts.sessions.reconciler.seen));
  }

  /** Runs an awake pass now (or after the running one). */
  poke(): void {
    if (this.#stopped || this.#pass) return;
    this.#pass = this.#reconcile()
      .catch((err: unknown) => this.opts.logger.warn({ err, city: this.opts.city }, 'agent reconcile failed'))
      .finally(() => (this.#pass = undefined));
  }

  /** One pass, awaited (tests, benches). */
  async tick(): Promise<void> {
    while (this.#pass) await this.#pass;
    await this.#reconcile();
  }

  /** An awake pass, then the agents as it left them shown (also when it failed part-way). */
  async #reconcile(): Promise<void> {
    try {
      await this.#awake();
    } finally {
      this.#reportAgents();
    }
  }

  async #awake(): Promise<void> {
    const templates = this.templates();
    await Promise.all(templates.filter((t) => t.scaleCheck).map((t) => this.#scaleCheck(t)));
    // A template without a scale check wants a session per piece of work routed to it (upstream's default).
    const routed = routedDemand(this.opts.store.model, this.#now());
    const demand = new Map(this.#demand);
    for (const t of templates) if (!t.scaleCheck) demand.set(t.qualified, routed.get(t.qualified) ?? 0);
    const actions = awakeSet({
      templates,
      named: this.opts.sessions.config.namedSessions ?? [],
      sessions: this.#facts(),
      demand,
    });
    if (this.#stopped) return;
    // Creates go together (one group-committed round); closes stop runtimes, each on its own.
    await Promise.all(
      actions.map((a) =>
        a.kind === 'create'
          ? this.opts.sessions.createFor(a.template, a.instance, a.origin)
          : this.#closeSurplus(a.id),
      ),
    );
  }

  /** Closes an idle surplus session, then gives back any bead it claimed in the meantime. */
  async #closeSurplus(id: string): Promise<void> {
    const record = this.opts.sessions.book.openSessions().find((s) => s.id === id);
    await this.opts.sessions.close(id, {}, { actor: 'gc' });
    if (record) await releaseHeld(this.opts.store, record);
  }

  async #scaleCheck(t: AgentTemplate): Promise<void> {
    const out = await new Promise<string | undefined>((resolve) => {
      exec(
        t.scaleCheck!,
        { cwd: this.opts.path, timeout: this.opts.scaleCheckTimeoutMs ?? 10_000 },
        (err, stdout) => resolve(err ? undefined : stdout),
      );
    });
    const n = Number(out?.trim());
    if (out !== undefined && Number.isInteger(n) && n >= 0) this.#demand.set(t.qualified, n);
    else this.opts.logger.warn({ city: this.opts.city, agent: t.qualified }, 'scale_check gave no count');
  }

  /** The open sessions that belong to agents (pool instances, named sessions, API sessions of a template). */
  #facts(): AgentSessionFacts[] {
    const seen = this.opts.sessions.reconciler.seen;
    return this.opts.sessions.book.openSessions().map((s) => ({
      id: s.id,
      template: s.template,
      instance: s.alias || s.sessionName,
      state: s.state,
      // Started and ready, not merely a runtime session that exists: start waves wait for this.
      running: s.state === 'active' && seen.get(s.sessionName)?.running === true,
      busy: activeBead(this.opts.store.model, s) !== undefined,
      manual: s.meta.session_origin === 'manual',
    }));
  }

  /** An `on_demand` named session is created the first time a message names it. */
  async #materialize(target: string): Promise<SessionRecord | undefined> {
    const named = (this.opts.sessions.config.namedSessions ?? []).find((n) => n.name === target);
    if (!named || !this.templates().some((t) => t.qualified === named.template)) return undefined;
    return this.opts.sessions.createFor(named.template, named.name, 'named');
  }

  async list(query: AgentListQuery): Promise<AgentPage> {
    const views = await this.#views(query.peek === true);
    const items = views.filter(
      (v) =>
        (query.pool === undefined || v.pool === query.pool) &&
        (query.rig === undefined || v.rig === query.rig) &&
        (query.running === undefined || v.running === query.running),
    );
    return { items, total: items.length };
  }

  async get(name: string, options: { peek?: boolean; extras?: boolean } = {}): Promise<AgentView> {
    const views = await this.#views(options.peek === true);
    const found = views.find((v) => v.name === name) ?? views.find((v) => v.pool === name);
    if (!found) throw new NotFoundError(`agent ${JSON.stringify(name)} not found`);
    if (!options.extras) return found;
    const template = this.templates().find((t) => t.qualified === (found.pool ?? found.name));
    return template?.workQuery ? { ...found, work_query: template.workQuery } : found;
  }

  #viewsFrom(seen: ReadonlyMap<string, SeenRuntime>): AgentView[] {
    const sessions = this.opts.sessions;
    return agentViews({
      templates: this.templates(),
      open: sessions.book.openSessions(),
      seen,
      model: this.opts.store.model,
      config: sessions.config,
      now: this.#now(),
    });
  }

  async #views(peek: boolean): Promise<AgentView[]> {
    const sessions = this.opts.sessions;
    const seen = await sessions.reconciler.observe(1000).catch(() => sessions.reconciler.seen);
    const views = this.#viewsFrom(seen);
    if (!peek) return views;
    for (const view of views) {
      if (!view.session) continue;
      try {
        view.last_output = await sessions.runtime.peek(view.session.name, 5);
      } catch {
        // gone meanwhile: no preview
      }
    }
    return views;
  }

  create(input: AgentCreateInput, actor: string): Promise<{ status: 'ok'; agent: string }> {
    return this.#edits.create(input, actor);
  }

  update(name: string, input: AgentUpdateInput, actor: string): Promise<void> {
    return this.#edits.update(name, input, actor);
  }

  remove(name: string, actor: string): Promise<void> {
    return this.#edits.remove(name, actor);
  }

  act(name: string, action: AgentAction, actor: string): Promise<void> {
    return this.#edits.act(name, action, actor);
  }

  /**
   * The agent's conversation from its session's own log (upstream: `tail` counts compaction segments and
   * defaults to 1 here), else its screen while it runs. @throws NotFoundError when it has neither.
   */
  async output(name: string, options: { tail?: number; before?: string }): Promise<AgentOutput> {
    const view = await this.get(name);
    const s = this.#sessionOf(view);
    if (!s) throw new NotFoundError(`agent ${name} has no output: it has no session`);
    const page = await this.#transcripts.transcript(s.id, {
      tail: options.tail ?? 1,
      ...(options.before ? { before: options.before } : {}),
    });
    if (page.format === 'conversation' && (page.turns ?? []).length === 0 && !view.running) {
      throw new NotFoundError(`agent ${name} has no output: it is not running and has no log`);
    }
    return {
      agent: view.name,
      format: page.format,
      turns: page.turns ?? [],
      ...(page.pagination ? { pagination: page.pagination } : {}),
    };
  }

  /** The session behind an agent view: a pool slot's own; a singleton's newest (open first). */
  #sessionOf(view: AgentView): SessionRecord | undefined {
    const all = this.opts.sessions.book.allSessions().reverse();
    if (view.pool !== undefined) return all.find((s) => s.alias === view.name);
    return (
      all.find((s) => !s.closed && s.template === view.name) ?? all.find((s) => s.template === view.name)
    );
  }
}
