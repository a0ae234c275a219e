/**
 * One city's agents: the `AgentApi` the routes call. Agents are the `[[agent]]` templates of `city.toml`;
 * their running instances are sessions (pool instances and named sessions carry the instance name as their
 * alias). On the sessions' tick it computes the awake set (pure, machines/agents/awake.ts): it creates the
 * sessions pools and `always` named sessions need, closes a shrinking pool's idle surplus, and holds the
 * starts of agents whose dependencies are not running (start waves). Edits of agents go through the one
 * city.toml writer and are recorded as `agent.config_changed`.
 */
import { exec } from 'node:child_process';
import { ConflictError, NotFoundError, ValidationError } from '../runtime/errors.ts';
import type { AgentConfig } from '../config/cityConfig.ts';
import type { Logger } from '../runtime/logger.ts';
import type { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import type { ActorObserver } from '../inspect/actorObserver.ts';
import { AgentActorReporter } from '../inspect/agentActors.ts';
import type { BeadStore } from '../beads/beadStore.ts';
import type { SessionService } from '../sessions/sessionService.ts';
import { builtinPresets } from '../sessions/runtime/presets.ts';
import {
  agentState,
  awakeSet,
  waitingOnDependencies,
  type AgentSessionFacts,
} from '../../machines/agents/awake.ts';
import {
  instanceName,
  qualifiedName,
  templateOf,
  type AgentTemplate,
} from '../../machines/agents/templates.ts';
import { routedDemand } from '../../machines/agents/routedDemand.ts';
import type { SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import type { SeenRuntime } from '../../machines/sessions/plan.ts';
import { SessionTranscripts } from '../sessions/transcript/sessionTranscripts.ts';
import { configWriterFor, settlePendingWrite, type ConfigWriter } from '../config/configWriter.ts';
import { putPatch } from '../config/patchEdits.ts';
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

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

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
  readonly #writer: ConfigWriter;
  readonly #transcripts: SessionTranscripts;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;
  #stopped = false;
  /** The last answer of each pool's scale check. */
  readonly #demand = new Map<string, number>();
  readonly #reporter: AgentActorReporter | undefined;

  constructor(private readonly opts: AgentServiceOptions) {
    this.#writer = configWriterFor(opts.path, opts.city);
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
    return this.opts.sessions.config.agents.filter((a) => NAME.test(a.name)).map(templateOf);
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
          : this.opts.sessions.close(a.id, {}, { actor: 'gc' }),
      ),
    );
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
      busy: this.#activeBead(s) !== undefined,
    }));
  }

  /** An in-progress bead assigned to the session (by instance name or id): its work. */
  #activeBead(s: SessionRecord): string | undefined {
    const model = this.opts.store.model;
    for (const who of [s.alias, s.id, s.sessionName]) {
      if (!who) continue;
      for (const id of model.indexes.byAssignee.open.get(who) ?? []) {
        if (model.beads.get(id)?.bead.status === 'in_progress') return id;
      }
    }
    return undefined;
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

  async get(name: string, options: { peek?: boolean } = {}): Promise<AgentView> {
    const views = await this.#views(options.peek === true);
    const found = views.find((v) => v.name === name);
    if (found) return found;
    const pool = views.filter((v) => v.pool === name);
    if (pool.length > 0) return pool[0]!;
    throw new NotFoundError(`agent ${JSON.stringify(name)} not found`);
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

  /** One view per instance: a singleton's one, a bounded pool's slots, an unbounded pool's sessions. */
  #viewsFrom(seen: ReadonlyMap<string, SeenRuntime>): AgentView[] {
    const open = this.opts.sessions.book.openSessions();
    const now = this.#now();
    const views: AgentView[] = [];
    for (const t of this.templates()) {
      const mine = open.filter((s) => s.template === t.qualified);
      const instances = !t.pool
        ? [t.qualified]
        : t.max !== undefined
          ? Array.from({ length: t.max }, (_, i) => instanceName(t, i + 1))
          : [...new Set(mine.map((s) => s.alias))].filter(Boolean).sort();
      for (const name of instances) {
        const s = mine.find((x) => x.alias === name) ?? (t.pool ? undefined : mine[0]);
        views.push(this.#view(t, name, s, s ? seen.get(s.sessionName) : undefined, now));
      }
    }
    return views;
  }

  #view(
    t: AgentTemplate,
    name: string,
    s: SessionRecord | undefined,
    rt: SeenRuntime | undefined,
    now: number,
  ): AgentView {
    // Running means started and ready (active), not a runtime still showing its start-up.
    const running =
      s?.state === 'active' &&
      rt?.running === true &&
      (rt.token === undefined || rt.token === s.instanceToken);
    const suspended = t.suspended || s?.state === 'suspended';
    const activeBead = s ? this.#activeBead(s) : undefined;
    const provider = t.provider ?? this.opts.sessions.config.provider;
    const presetKnown =
      t.startCommand !== undefined || (provider !== undefined && this.#knowsProvider(provider));
    const view: AgentView = {
      name,
      running,
      suspended,
      state: agentState({
        suspended,
        quarantined: s?.state === 'quarantined',
        running,
        activeBead: activeBead !== undefined,
        lastActivity: rt && rt.lastActivity > 0 ? rt.lastActivity : undefined,
        now,
      }),
      available: !suspended && presetKnown,
      display_name: name,
    };
    if (!view.available)
      view.unavailable_reason = suspended ? 'suspended' : `provider ${provider ?? '(none)'} is not known`;
    if (provider) view.provider = provider;
    if (t.dir) view.rig = t.dir;
    if (t.pool) view.pool = t.qualified;
    if (t.description) view.description = t.description;
    if (activeBead) view.active_bead = activeBead;
    if (s && running) {
      view.session = { name: s.sessionName, attached: false };
      if (rt && rt.lastActivity > 0) view.session.last_activity = new Date(rt.lastActivity).toISOString();
    }
    return view;
  }

  async create(input: AgentCreateInput, actor: string): Promise<{ status: 'ok'; agent: string }> {
    invalidUnless(
      NAME.test(input.name),
      'body.name',
      'expected letters, digits, ".", "_" or "-"',
      input.name,
    );
    if (input.dir !== undefined) {
      invalidUnless(NAME.test(input.dir), 'body.dir', 'expected a rig name', input.dir);
    }
    invalidUnless(this.#knowsProvider(input.provider), 'body.provider', 'unknown provider', input.provider);
    const qualified = qualifiedName(input);
    if (this.templates().some((t) => t.qualified === qualified)) {
      throw new ConflictError(`agent ${qualified} already exists`);
    }
    const agent: AgentConfig = { name: input.name, provider: input.provider };
    if (input.dir) agent.dir = input.dir;
    if (input.scope) agent.scope = input.scope;
    await this.#edit(actor, 'created', qualified, agent, (tables) => [...tables, { ...agent }]);
    this.poke();
    return { status: 'ok', agent: qualified };
  }

  async update(name: string, input: AgentUpdateInput, actor: string): Promise<void> {
    const current = this.#configOf(name);
    if (input.provider !== undefined) {
      invalidUnless(this.#knowsProvider(input.provider), 'body.provider', 'unknown provider', input.provider);
    }
    const next: AgentConfig = { ...current };
    if (input.provider !== undefined) next.provider = input.provider;
    if (input.scope !== undefined) next.scope = input.scope;
    if (input.suspended !== undefined) next.suspended = input.suspended;
    const set: Record<string, unknown> = {};
    if (input.provider !== undefined) set.provider = input.provider;
    if (input.scope !== undefined) set.scope = input.scope;
    if (input.suspended !== undefined) set.suspended = input.suspended;
    await this.#edit(
      actor,
      'updated',
      name,
      next,
      (tables) => tables.map((t) => (isTable(name)(t) ? { ...t, ...set } : t)),
      set,
    );
    if (input.suspended !== undefined) await this.#applySuspension(name, input.suspended, actor);
    this.poke();
  }

  async remove(name: string, actor: string): Promise<void> {
    this.#configOf(name); // 404 for an unknown agent, before anything is written
    await this.#edit(actor, 'deleted', name, undefined, (tables) => tables.filter((t) => !isTable(name)(t)));
    for (const s of this.opts.sessions.book.openSessions().filter((x) => x.template === name)) {
      await this.opts.sessions.close(s.id, {}, { actor });
    }
  }

  async act(name: string, action: AgentAction, actor: string): Promise<void> {
    if (action === 'suspend' || action === 'resume') {
      await this.update(name, { suspended: action === 'suspend' }, actor);
      return;
    }
    throw new NotFoundError(`agent action ${JSON.stringify(action)} not found`);
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

  /** Suspending an agent suspends its running sessions; resuming wakes those it suspended. */
  async #applySuspension(name: string, suspend: boolean, actor: string): Promise<void> {
    const sessions = this.opts.sessions;
    for (const s of sessions.book.openSessions().filter((x) => x.template === name)) {
      try {
        if (suspend && s.state !== 'suspended') await sessions.suspend(s.id, { actor });
        else if (!suspend && s.state === 'suspended') await sessions.wake(s.id, { actor });
      } catch (err) {
        this.opts.logger.warn({ err, city: this.opts.city, session: s.id }, 'agent suspension not applied');
      }
    }
  }

  #configOf(name: string): AgentConfig {
    const found = this.opts.sessions.config.agents.find((a) => qualifiedName(a) === name);
    if (!found) throw new NotFoundError(`agent ${JSON.stringify(name)} not found`);
    return found;
  }

  /**
   * Rewrites city.toml's `[[agent]]` tables with `change` (on the raw tables, so keys this supervisor does
   * not model are kept), records it, and makes the new config the sessions'. An agent a pack defines is not
   * in those tables: its edit (`patch`, the fields set) becomes an agent patch of city.toml, which survives
   * pack updates (upstream's rule for suspending one); its removal is a ConflictError.
   */
  async #edit(
    actor: string,
    op: 'created' | 'updated' | 'deleted',
    agent: string,
    config: AgentConfig | undefined,
    change: (tables: Record<string, unknown>[]) => Record<string, unknown>[],
    patch?: Record<string, unknown>,
  ): Promise<void> {
    const { config: next } = await this.#writer.write(this.opts.log, (doc, current) => {
      const raw = Array.isArray(doc.agent) ? (doc.agent as Record<string, unknown>[]) : [];
      if (op !== 'created' && !raw.some(isTable(agent))) {
        if (!patch) {
          throw new ConflictError(
            `agent ${agent} is defined by a pack: patch it (PUT /patches/agents) instead of removing it`,
          );
        }
        const [dir, base] = agent.includes('/') ? agent.split('/') : [undefined, agent];
        putPatch(actor, 'agent', { name: base, ...(dir ? { dir } : {}), ...patch })(doc, current);
      } else {
        const tables = change(raw);
        if (tables.length > 0) doc.agent = tables;
        else delete doc.agent;
      }
      return {
        record: {
          type: 'agent.config_changed',
          actor,
          subject: agent,
          payload: { op, agent, ...(config ? { config: { ...config } } : {}) },
        },
        result: undefined,
      };
    });
    this.opts.sessions.setConfig(next.city);
    this.#reportAgents();
  }

  /** A builtin provider, or one the city defines (`[providers.<name>]`). */
  #knowsProvider(name: string): boolean {
    return name in builtinPresets() || Object.hasOwn(this.opts.sessions.config.providers ?? {}, name);
  }
}

/** True when a raw `[[agent]]` table is the agent `qualified` names. */
const isTable = (qualified: string) => (t: Record<string, unknown>) =>
  (typeof t.dir === 'string' && t.dir !== '' ? `${t.dir}/${String(t.name)}` : t.name) === qualified;

function invalidUnless(ok: boolean, location: string, message: string, value: unknown): void {
  if (ok) return;
  throw new ValidationError(`${location.replace('body.', '')}: ${message}`, 'invalid', {
    errors: [{ location, message, value }],
  });
}
