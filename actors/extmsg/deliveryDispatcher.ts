import { setTimeout as sleep } from 'node:timers/promises';
import { GcError } from '../runtime/errors.ts';
import type { DeliveryContextRecord, PublishReceipt } from '../../schemas/extmsg.ts';
import {
  decideDeliveryAcked,
  decideDeliveryFailed,
  DELIVERY_ID_KEY,
} from '../../machines/extmsg/decideOutbound.ts';
import { adapterKey, type DeliveryState } from '../../machines/extmsg/model.ts';
import type { ExtmsgRunner } from './extmsgRunner.ts';
import { nextAttemptAt, type DeliveryPolicy } from './deliveryPolicy.ts';
import type { PublishFn, PublishOutcome } from './httpAdapter.ts';

/** What an attempt came to, once it is journaled. */
export type AttemptResult =
  | { delivered: true; receipt: PublishReceipt; context: DeliveryContextRecord }
  | { delivered: false; kind: string; error: string; retryAfterNs: number; status: DeliveryState['status'] };

/** The actor recorded on the delivery events. */
const ACTOR = 'extmsg';

/**
 * Delivers the pending outbound messages of one city to their adapters: each pending delivery is attempted
 * when due, one attempt at a time; an acknowledgement is journaled (`extmsg.delivery_acked`) and the
 * delivery is never sent again; a failure is journaled with the next attempt's time, or as the dead letter.
 * All of its state is the model (the fold of the log): after a restart, `start` resumes every pending
 * delivery at its due time. An acknowledgement the journal has not taken is retried until it lands, never
 * answered by sending the message again.
 */
export class DeliveryDispatcher {
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #inflight = new Map<string, Promise<void>>();
  readonly #next = new Map<string, ((r: AttemptResult) => void)[]>();
  readonly #settled = new Map<string, ((s: DeliveryState['status']) => void)[]>();
  readonly #abort = new AbortController();
  #stopped = false;

  constructor(
    private readonly runner: ExtmsgRunner,
    private readonly publish: PublishFn,
    private readonly policy: DeliveryPolicy,
    private readonly clock: () => Date,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Schedules every pending delivery of the model (a start or restart). */
  start(): void {
    for (const id of this.runner.model.pending) this.schedule(id);
  }

  /** Attempts delivery `id` when it is due (now, if overdue); a no-op unless it is pending and idle. */
  schedule(id: string): void {
    if (this.#stopped || this.#inflight.has(id)) return;
    const d = this.runner.model.deliveries.get(id);
    if (d?.status !== 'pending') return this.#settle(id, d?.status);
    clearTimeout(this.#timers.get(id));
    const wait = Date.parse(d.dueAt) - this.clock().getTime();
    if (wait <= 0) {
      this.#timers.delete(id);
      this.#start(id);
      return;
    }
    const timer = setTimeout(() => {
      this.#timers.delete(id);
      this.#start(id);
    }, wait);
    timer.unref();
    this.#timers.set(id, timer);
  }

  /** Resolves with the result of the next attempt of `id` that is journaled. */
  nextResult(id: string): Promise<AttemptResult> {
    return new Promise((resolve) => this.#push(this.#next, id, resolve));
  }

  /** Resolves once delivery `id` is acked or dead (at once when it already is). */
  settled(id: string): Promise<DeliveryState['status']> {
    const status = this.runner.model.deliveries.get(id)?.status;
    if (status !== undefined && status !== 'pending') return Promise.resolve(status);
    return new Promise((resolve) => this.#push(this.#settled, id, resolve));
  }

  /** Stops scheduling, aborts the publishes in flight (their outcome is not journaled) and waits for them. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#abort.abort();
    await Promise.all(this.#inflight.values());
  }

  #push<T>(map: Map<string, T[]>, id: string, item: T): void {
    const list = map.get(id);
    if (list) list.push(item);
    else map.set(id, [item]);
  }

  #settle(id: string, status: DeliveryState['status'] | undefined): void {
    if (status === undefined || status === 'pending') return;
    const waiters = this.#settled.get(id);
    this.#settled.delete(id);
    for (const w of waiters ?? []) w(status);
  }

  #start(id: string): void {
    const run = this.#attempt(id)
      .catch((err: unknown) => this.onError(err))
      .finally(() => {
        this.#inflight.delete(id);
        if (!this.#stopped) this.schedule(id);
      });
    this.#inflight.set(id, run);
  }

  async #attempt(id: string): Promise<void> {
    const d = this.runner.model.deliveries.get(id);
    if (d?.status !== 'pending') return;
    const attempt = d.attempts + 1;
    const adapter = this.runner.model.adapters.get(adapterKey(d.queued.provider, d.queued.account_id));
    let outcome: PublishOutcome;
    if (!adapter || adapter.callback_url === '') {
      outcome = {
        delivered: false,
        kind: 'no_adapter',
        error: `no adapter with a callback URL registered for ${d.queued.provider}/${d.queued.account_id}`,
        retryAfterNs: 0,
      };
    } else {
      const signal = AbortSignal.any([this.#abort.signal, AbortSignal.timeout(this.policy.timeoutMs)]);
      outcome = await this.publish(adapter.callback_url, d.queued.request, signal);
      if (this.#stopped) return; // not journaled: the attempt is made again after the restart
    }
    const result = outcome.delivered
      ? await this.#journal(async () => {
          const receipt = {
            ...outcome.receipt,
            Metadata: { ...outcome.receipt.Metadata, [DELIVERY_ID_KEY]: id },
          };
          const context = await this.runner.run(
            (model, ctx) => decideDeliveryAcked(model, { id, attempt, receipt }, ctx),
            ACTOR,
          );
          return { delivered: true as const, receipt, context };
        })
      : await this.#journal(async () => {
          const retryAt = nextAttemptAt(
            this.policy,
            outcome.kind,
            attempt,
            outcome.retryAfterNs,
            this.clock(),
          );
          const command = {
            id,
            attempt,
            kind: outcome.kind,
            error: outcome.error,
            ...(retryAt !== undefined ? { retryAt } : {}),
          };
          const status = await this.runner.run(
            (model, ctx) => decideDeliveryFailed(model, command, ctx),
            ACTOR,
          );
          return { ...outcome, delivered: false as const, status };
        });
    if (!result) return;
    const waiters = this.#next.get(id);
    this.#next.delete(id);
    for (const w of waiters ?? []) w(result);
    this.#settle(id, this.runner.model.deliveries.get(id)?.status);
  }

  /** Journals an attempt's outcome, retrying until it lands or the dispatcher stops (undefined then). */
  async #journal<T>(write: () => Promise<T>): Promise<T | undefined> {
    for (let i = 0; ; i++) {
      try {
        return await write();
      } catch (err) {
        this.onError(err);
        // A refusal will not change on a retry (and cannot happen to a delivery read from the model).
        if (this.#stopped || (err instanceof GcError && err.status < 500)) return undefined;
        await sleep(Math.min(this.policy.capMs, this.policy.baseMs * 2 ** Math.min(i, 10)));
      }
    }
  }
}
