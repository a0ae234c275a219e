/**
 * One city's sessions: the `SessionApi` the routes call. Mutations are pure session decisions on the city
 * log (sessions are beads), runtime effects run here or on the reconciler, and the async operations
 * (create, message, submit) answer 202 once their acceptance is durable and finish with exactly one
 * terminal event on the city stream, also across a supervisor restart.
 */
import type { CityConfig } from '../config/cityConfig.ts';
import { ConflictError, UnavailableError, ValidationError } from '../runtime/errors.ts';
import type { Logger } from '../runtime/logger.ts';
import { newRequestId } from './requestIds.ts';
import type { BeadStore } from '../beads/beadStore.ts';
import { requestHash } from '../beads/idempotency.ts';
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
import {
  decideAcceptRequest,
  decideFinishRequest,
  deliverable,
} from '../../machines/sessions/decideRequests.ts';
import { sessionOf, type PendingRequest, type SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import { DEFAULT_SESSION_THRESHOLDS, type SessionThresholds } from '../../machines/sessions/thresholds.ts';
import type { RuntimeProvider } from './runtime/provider.ts';
import { KeyedReplies, keyedRequest, recordedFirst, type KeyedRequest } from './keyedReplies.ts';
import { SessionPending } from './pending/sessionPending.ts';
import { SessionBook } from './sessionBook.ts';
import { SessionReconciler } from './sessionReconciler.ts';
import { sessionView } from './sessionView.ts';
import { mintSessionKey, resolveTemplate } from './templates.ts';
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

export interface SessionServiceOptions {
  city: string;
  path: string;
  store: BeadStore;
  runtime: RuntimeProvider;
  config: CityConfig;
  logger: Logger;
  thresholds?: Partial<SessionThresholds>;
  now?: () => number;
  /** Extra environment for every session's process. */
  env?: Record<string, string>;
}

const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;

export class SessionService implements SessionApi {
  readonly book: SessionBook;
  readonly reconciler: SessionReconciler;
  readonly thresholds: SessionThresholds;
  readonly #now: () => number;
  readonly #keyed = new KeyedReplies();
  /** Deliveries in flight, so stop can wait for them. */
  readonly #deliveries = new Set<Promise<void>>();
  #stopped = false;
  #config: CityConfig;
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
    });
  }

  /** The city's config as sessions read it (templates); the agent layer replaces it after an edit. */
  get config(): CityConfig {
    return this.#config;
  }

  setConfig(config: CityConfig): void {
    this.#config = config;
  }

  /**
   * A session the agent reconciler wants (a pool instance, a named session): created like an API create
   * but without a request to answer; `instance` becomes its alias. Resolves with the new session.
   */
  async createFor(template: string, instance: string, origin: 'ephemeral' | 'named'): Promise<SessionRecord> {
    this.#open();
    const t = resolveTemplate(this.#config, 'agent', template);
    const sessionKey = mintSessionKey(t);
    const created = await this.book.decide((m, c) =>
      decideCreateSession(
        m,
        {
          template: t.name,
          provider: t.provider,
          title: instance,
          alias: instance,
          workDir: this.opts.path,
          command: t.command,
          origin,
          ...(sessionKey ? { sessionKey } : {}),
          metadata: { agent_name: instance },
        },
        c,
      ),
    );
    this.reconciler.poke();
    return created;
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

  async stopService(): Promise<void> {
    this.#stopped = true;
    await this.reconciler.stop();
    await Promise.allSettled([...this.#deliveries]);
    await this.opts.runtime.close();
  }

  async list(query: SessionListQuery): Promise<SessionPage> {
    const seen = await this.#observed(1000);
    let records = query.state ? this.book.allSessions() : this.book.openSessions();
    records = records.reverse(); // newest first
    if (query.template) records = records.filter((s) => s.template === query.template);
    // Views (they join the observation) are built for the page only, unless the state filter needs them.
    const matching: { id: string; view?: SessionView; record: (typeof records)[number] }[] = [];
    for (const record of records) {
      if (!query.state) {
        matching.push({ id: record.id, record });
        continue;
      }
      const view = sessionView(record, seen.get(record.sessionName));
      if (view.state === query.state) matching.push({ id: record.id, view, record });
    }
    const limit = Math.min(query.limit && query.limit > 0 ? query.limit : DEFAULT_PAGE, MAX_PAGE);
    let start = 0;
    if (query.cursor) {
      const at = matching.findIndex((v) => v.id === query.cursor);
      if (at < 0)
        throw new ValidationError(
          `cursor ${JSON.stringify(query.cursor)} is not a session of this list`,
          'invalid',
          { errors: [{ location: 'query.cursor', message: 'unknown cursor', value: query.cursor }] },
        );
      start = at;
    }
    const items = matching
      .slice(start, start + limit)
      .map((m) => m.view ?? sessionView(m.record, seen.get(m.record.sessionName)));
    if (query.peek) await Promise.all(items.map((v) => this.#peekInto(v, 5)));
    const next = matching[start + limit];
    return { items, total: matching.length, ...(next ? { next_cursor: next.id } : {}) };
  }

  async get(id: string, options: { peek?: boolean; peekLines?: number } = {}): Promise<SessionView> {
    const s = this.book.resolve(id);
    const seen = await this.#observed(1000);
    const view = sessionView(s, seen.get(s.sessionName));
    if (options.peek) await this.#peekInto(view, options.peekLines ?? 20);
    return view;
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
      const metadata: Record<string, string> = {};
      if (template.kind === 'provider') metadata['gc.kind'] = 'provider';
      if (input.message) metadata['gc.first_message'] = input.message;
      if (input.options && Object.keys(input.options).length > 0) {
        metadata['template_overrides'] = JSON.stringify(input.options);
      }
      if (input.project_id) metadata['mc_project_id'] = input.project_id;
      if (idempotency) {
        metadata[ACCEPT_REQUEST] = requestId;
        metadata[ACCEPT_CURSOR] = String(cursor);
      }
      // `session_name` is upstream's deprecated spelling of alias.
      const alias = input.alias ?? (input as { session_name?: string }).session_name;
      const made = await this.book.decide(
        (m, c) =>
          decideCreateSession(
            m,
            {
              template: template.name,
              provider: template.provider,
              title: input.title || template.name,
              ...(alias ? { alias } : {}),
              workDir: this.opts.path,
              command: template.command,
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
    return this.#request(id, text, { id: '', op: 'message' }, ctx);
  }

  submit(id: string, text: string, intent: SubmitIntent, ctx: MutationContext): Promise<Accepted> {
    return this.#request(id, text, { id: '', op: 'submit', intent }, ctx);
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

  async #request(id: string, text: string, request: PendingRequest, ctx: MutationContext): Promise<Accepted> {
    this.#open();
    if (text.trim() === '') {
      throw new ValidationError('message must not be empty', 'invalid', {
        errors: [{ location: 'body.message', message: 'expected a non-empty message', value: text }],
      });
    }
    const s = await this.#resolveOrMaterialize(id);
    if (!ctx.idempotencyKey) return this.#accept(s, text, request, ctx);
    // A retry answers the first 202 (recorded with the session, so also after a restart), never delivers again.
    const keyed = keyedRequest(request, ctx.idempotencyKey, text);
    return this.#keyed.answer(s, keyed, () => this.#accept(s, text, request, ctx, keyed));
  }

  async #accept(
    s: SessionRecord,
    text: string,
    request: PendingRequest,
    ctx: MutationContext,
    keyed?: KeyedRequest,
  ): Promise<Accepted> {
    // Text typed at an approval prompt would answer it: refuse (409 pending_interaction:) before anything is
    // written, as upstream does for messages and submits but an interrupt_now (sessions-runtime.md §5.1).
    if (request.intent !== 'interrupt_now') await new SessionPending(this).assertNone(s.id);
    if (!deliverable(s.state))
      throw new ConflictError(`session ${s.id} is ${s.state}: it cannot take a message`);
    const cursor = String(this.index);
    const pending = { ...request, id: newRequestId() };
    const after = await this.book.decide(
      (m, c) => decideAcceptRequest(m, s.id, pending, c, keyed && { ...keyed, cursor }),
      ctx.actor,
    );
    const first = keyed && recordedFirst(after, keyed, pending.id);
    if (first) return first;
    // Only a session that must start first needs the reconciler; an active one is typed into at once.
    if (after.state !== 'active') this.reconciler.poke();
    const delivery = this.#deliver(s.id, pending, text).finally(() => this.#deliveries.delete(delivery));
    this.#deliveries.add(delivery);
    return { status: 'accepted', request_id: pending.id, event_cursor: cursor };
  }

  async #resolveOrMaterialize(target: string): Promise<SessionRecord> {
    try {
      return this.book.resolve(target);
    } catch (err) {
      const made = await this.materialize(target);
      if (made) return made;
      throw err;
    }
  }

  /** Waits for the session to run (a message wakes an asleep one), types the text, records the result. */
  async #deliver(id: string, request: PendingRequest, text: string): Promise<void> {
    const deadline = this.#now() + this.thresholds.messageTimeoutMs;
    let outcome: { ok: true } | { ok: false; code: string; message: string };
    try {
      const s = await this.#whenRunning(id, deadline);
      await this.reconciler.exclusive(
        id,
        async () => {
          if (request.intent === 'interrupt_now') await this.opts.runtime.interrupt(s.sessionName);
          await this.opts.runtime.nudge(s.sessionName, text);
        },
        { poke: false },
      );
      outcome = { ok: true };
    } catch (err) {
      const timeout = err instanceof DeliveryTimeout;
      outcome = {
        ok: false,
        code: timeout ? 'timeout' : `${request.op}_failed`,
        message: (err as Error).message,
      };
    }
    await this.book
      .decide((m, c) => decideFinishRequest(m, id, request.id, outcome, this.#now(), c))
      .catch((err: unknown) =>
        this.opts.logger.error(
          { err, city: this.opts.city, request: request.id },
          'session request not finished',
        ),
      );
  }

  /** Resolves once the session is active with its runtime running; fails when it closes or the deadline passes. */
  async #whenRunning(id: string, deadline: number): Promise<SessionRecord> {
    for (;;) {
      if (this.#stopped) throw new UnavailableError('the supervisor is stopping');
      const s = this.book.find(id);
      if (!s || s.closed) throw new Error(`session ${id} was closed`);
      if (!s.requests.length) throw new Error(`session ${id} no longer holds the request`);
      if (s.state === 'active' && !this.reconciler.isBusy(id)) {
        const seen = await this.reconciler.observe(200);
        if (seen.get(s.sessionName)?.running) return s;
      }
      if (s.state === 'suspended' || s.state === 'quarantined')
        throw new Error(`session ${id} is ${s.state}`);
      if (this.#now() > deadline)
        throw new DeliveryTimeout(`session ${id} was not running within the message timeout`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async #running(s: SessionRecord): Promise<boolean> {
    const seen = await this.reconciler.observe();
    const rt = seen.get(s.sessionName);
    return rt?.running === true && (rt.token === undefined || rt.token === s.instanceToken);
  }

  async #observed(maxAgeMs: number) {
    try {
      return await this.reconciler.observe(maxAgeMs);
    } catch (err) {
      this.opts.logger.warn({ err, city: this.opts.city }, 'session runtime observation failed');
      return this.reconciler.seen;
    }
  }

  async #peekInto(view: SessionView, lines: number): Promise<void> {
    if (!view.running) return;
    try {
      view.last_output = await this.opts.runtime.peek(view.session_name, lines);
    } catch {
      // gone between the observation and the peek: no preview
    }
  }

  #open(): void {
    if (this.#stopped) throw new UnavailableError(`sessions of city ${this.opts.city} are stopping`);
  }
}

class DeliveryTimeout extends Error {}
