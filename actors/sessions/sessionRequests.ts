/**
 * Messages and submits to a session: accepted onto it (durably, so exactly one terminal event follows,
 * also across a restart), typed into its runtime once it runs, and answered with that one event.
 */
import {
  decideAcceptRequest,
  decideFinishRequest,
  deliverable,
} from '../../machines/sessions/decideRequests.ts';
import type { PendingRequest, SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import type { SessionThresholds } from '../../machines/sessions/thresholds.ts';
import { ConflictError, UnavailableError, ValidationError } from '../runtime/errors.ts';
import type { Logger } from '../runtime/logger.ts';
import { KeyedReplies, keyedRequest, recordedFirst, type KeyedRequest } from './keyedReplies.ts';
import { SessionPending } from './pending/sessionPending.ts';
import { newRequestId } from './requestIds.ts';
import type { RuntimeProvider } from './runtime/provider.ts';
import type { Accepted, MutationContext } from './sessionApi.ts';
import type { SessionBook } from './sessionBook.ts';
import type { SessionReconciler } from './sessionReconciler.ts';

/** What the requests read of the sessions service they belong to. */
export interface RequestHost {
  readonly book: SessionBook;
  readonly reconciler: SessionReconciler;
  readonly runtime: RuntimeProvider;
  readonly thresholds: SessionThresholds;
  /** The city log's index now: the `event_cursor` of a 202. */
  readonly index: number;
  /** Asked when a request names no session (see SessionService.materialize). */
  materialize(target: string): Promise<SessionRecord | undefined>;
}

export class SessionRequests {
  readonly #keyed = new KeyedReplies();
  /** Deliveries in flight, so stop can wait for them. */
  readonly #deliveries = new Set<Promise<void>>();

  constructor(
    private readonly host: RequestHost,
    private readonly opts: {
      city: string;
      logger: Logger;
      now: () => number;
      /** Whether the service is stopping (no delivery waits on then). */
      stopping: () => boolean;
    },
  ) {}

  /** Resolves once the deliveries in flight have ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#deliveries]);
  }

  async send(id: string, text: string, request: PendingRequest, ctx: MutationContext): Promise<Accepted> {
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
    const { book, reconciler } = this.host;
    // Text typed at an approval prompt would answer it: refuse (409 pending_interaction:) before anything is
    // written, as upstream does for messages and submits but an interrupt_now (sessions-runtime.md §5.1).
    if (request.intent !== 'interrupt_now') await new SessionPending(this.host).assertNone(s.id);
    if (!deliverable(s.state))
      throw new ConflictError(`session ${s.id} is ${s.state}: it cannot take a message`);
    const cursor = String(this.host.index);
    const pending = { ...request, id: newRequestId() };
    const after = await book.decide(
      (m, c) => decideAcceptRequest(m, s.id, pending, c, keyed && { ...keyed, cursor }),
      ctx.actor,
    );
    const first = keyed && recordedFirst(after, keyed, pending.id);
    if (first) return first;
    // Only a session that must start first needs the reconciler; an active one is typed into at once.
    if (after.state !== 'active') reconciler.poke();
    const delivery = this.#deliver(s.id, pending, text).finally(() => this.#deliveries.delete(delivery));
    this.#deliveries.add(delivery);
    return { status: 'accepted', request_id: pending.id, event_cursor: cursor };
  }

  async #resolveOrMaterialize(target: string): Promise<SessionRecord> {
    try {
      return this.host.book.resolve(target);
    } catch (err) {
      const made = await this.host.materialize(target);
      if (made) return made;
      throw err;
    }
  }

  /** Waits for the session to run (a message wakes an asleep one), types the text, records the result. */
  async #deliver(id: string, request: PendingRequest, text: string): Promise<void> {
    const { book, reconciler, runtime, thresholds } = this.host;
    const deadline = this.opts.now() + thresholds.messageTimeoutMs;
    let outcome: { ok: true } | { ok: false; code: string; message: string };
    try {
      const s = await this.#whenRunning(id, deadline);
      await reconciler.exclusive(
        id,
        async () => {
          if (request.intent === 'interrupt_now') await runtime.interrupt(s.sessionName);
          await runtime.nudge(s.sessionName, text);
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
    await book
      .decide((m, c) => decideFinishRequest(m, id, request.id, outcome, this.opts.now(), c))
      .catch((err: unknown) =>
        this.opts.logger.error(
          { err, city: this.opts.city, request: request.id },
          'session request not finished',
        ),
      );
  }

  /** Resolves once the session is active with its runtime running; fails when it closes or the deadline passes. */
  async #whenRunning(id: string, deadline: number): Promise<SessionRecord> {
    const { book, reconciler } = this.host;
    for (;;) {
      if (this.opts.stopping()) throw new UnavailableError('the supervisor is stopping');
      const s = book.find(id);
      if (!s || s.closed) throw new Error(`session ${id} was closed`);
      if (!s.requests.length) throw new Error(`session ${id} no longer holds the request`);
      if (s.state === 'active' && !reconciler.isBusy(id)) {
        const seen = await reconciler.observe(200);
        if (seen.get(s.sessionName)?.running) return s;
      }
      if (s.state === 'suspended' || s.state === 'quarantined')
        throw new Error(`session ${id} is ${s.state}`);
      if (this.opts.now() > deadline)
        throw new DeliveryTimeout(`session ${id} was not running within the message timeout`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

class DeliveryTimeout extends Error {}
