import type { SchedulerEvent } from '../../machines/orders/scheduler.machine.ts';
import type { Firing } from '../../machines/orders/fire.ts';
import type { Order } from '../../machines/orders/order.ts';
import {
  cronNotBefore,
  evaluate,
  type CheckResult,
  type Evaluation,
  type OrderState,
} from '../../machines/orders/schedule.ts';
import type { OrderBook } from './orderBook.ts';
import type { OrderCommands } from './orderCommands.ts';
import type { OrderRuns } from './orderRuns.ts';
import type { OrderSwitches } from './orderSwitches.ts';
import type { TriggerCursors } from './triggerCursors.ts';

/** What the scheduler is given: the orders' parts, a clock, and who hears of its ticks and errors. */
export interface OrderSchedulerParts {
  book: OrderBook;
  switches: OrderSwitches;
  runs: OrderRuns;
  commands: OrderCommands;
  triggers: TriggerCursors;
  clock: () => number;
  /** Told of each tick's start and end (the scheduler's actor for the inspector). */
  scheduler?: { send(event: SchedulerEvent): void } | undefined;
  onError?: ((err: unknown) => void) | undefined;
}

/**
 * The orders' scheduler: on each tick every enabled order is evaluated and each due slot written (through
 * OrderRuns); a condition order's check runs beside the tick and fires the order when it passes.
 */
export class OrderScheduler {
  /** A cron order not due before `until` while its last slot is still `after` (skipped by the tick). */
  readonly #notBefore = new Map<string, { after: number | undefined; until: number }>();
  /** The condition check under way of each order (at most one), and what its result leads to. */
  readonly #checking = new Map<string, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<number> | undefined;
  /** The timer's reload and tick. */
  #pass: Promise<unknown> | undefined;
  #stopped = false;

  constructor(private readonly parts: OrderSchedulerParts) {}

  /** Ticks every `tickMs` (0: never; ticks are driven by the caller), each tick after `reload`. */
  start(tickMs: number, reload: () => Promise<void>): void {
    if (tickMs <= 0) return;
    this.#timer = setInterval(() => {
      if (this.#pass || this.#stopped) return;
      // An edited orders/ directory is seen at the next tick, as upstream's controller rescans it.
      this.#pass = reload()
        .then(() => (this.#stopped ? 0 : this.tick(this.parts.clock())))
        .catch((err: unknown) => void this.parts.onError?.(err))
        .finally(() => (this.#pass = undefined));
    }, tickMs);
    this.#timer.unref();
  }

  /** Stops ticking; no check that passes from now on fires. */
  halt(): void {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
  }

  /** Resolves once the timer's pass, the tick and the checks under way have ended. */
  async settled(): Promise<void> {
    await this.#pass;
    await this.#ticking?.catch(() => undefined);
    await this.idle();
  }

  /** Forgets what the tick memoised of an order (changed, switched). */
  forget(scopedName: string): void {
    this.#notBefore.delete(scopedName);
  }

  /** Forgets what the tick memoised of every order. */
  forgetAll(): void {
    this.#notBefore.clear();
  }

  /**
   * What each enabled order would do now, and why (`/orders/check`). As upstream, each enabled condition
   * order's `check` runs for this call (side by side); nothing is fired.
   */
  async check(now: number): Promise<{ order: Order; evaluation: Evaluation; state: OrderState }[]> {
    const { triggers, book, switches, commands, runs } = this.parts;
    const reading = triggers.settled();
    if (reading) await reading;
    const orders = [...book.orders.values()];
    const checks = await Promise.all(
      orders.map((o) =>
        o.trigger.kind === 'condition' && switches.enabled(o)
          ? commands.runCheck(o)
          : Promise.resolve(undefined),
      ),
    );
    return orders.map((order, i) => ({
      order,
      state: runs.state(order.scopedName),
      evaluation: switches.enabled(order)
        ? this.#evaluate(order, now, checks[i])
        : { due: false, reason: 'disabled', fire: [] },
    }));
  }

  #evaluate(order: Order, now: number, check?: CheckResult): Evaluation {
    const seq = order.trigger.kind === 'event' ? this.parts.triggers.newest(order.trigger.on) : 0;
    return evaluate(order, this.parts.runs.state(order.scopedName), now, seq, check);
  }

  /**
   * Starts a condition order's check without waiting for it (the tick never waits on a command): when it
   * passes and the order may still fire (enabled, its rig not suspended, no run open), it fires at once,
   * as upstream's tick fires a condition that passed. At most one check per order is under way.
   */
  #startCheck(order: Order): void {
    const { book, switches, commands, runs, clock } = this.parts;
    const name = order.scopedName;
    const p = commands
      .runCheck(order)
      .then(async (result) => {
        if (result.kind !== 'passed' || this.#stopped) return;
        if (book.orders.get(name) !== order || !switches.enabled(order) || book.rigSuspended(order)) return;
        const now = clock();
        const ev = this.#evaluate(order, now, result);
        if (ev.due) await runs.fireInTurn([{ order, slot: ev.fire[0] }], now);
      })
      .catch((err: unknown) => this.parts.onError?.(err))
      .finally(() => this.#checking.delete(name));
    this.#checking.set(name, p);
  }

  /** Resolves once the condition checks under way, and the firings they lead to, have ended. */
  async idle(): Promise<void> {
    while (this.#checking.size > 0) await Promise.all(this.#checking.values());
  }

  /**
   * One scheduler tick at `now`: every enabled order is evaluated; each due slot (and each run of missed
   * slots to record as skipped) is written as one batch before the next is decided. Resolves the number
   * of firings written.
   */
  tick(now: number): Promise<number> {
    const scheduler = this.parts.scheduler;
    scheduler?.send({ type: 'TICK', at: new Date(now).toISOString(), orders: this.parts.book.orders.size });
    const run = this.#tick(now)
      .then(
        (fired) => {
          scheduler?.send({ type: 'TICKED', fired });
          return fired;
        },
        (err: unknown) => {
          scheduler?.send({ type: 'TICK_FAILED', error: err instanceof Error ? err.message : String(err) });
          throw err;
        },
      )
      .finally(() => (this.#ticking = undefined));
    this.#ticking = run;
    return run;
  }

  async #tick(now: number): Promise<number> {
    const { triggers, book, switches, runs } = this.parts;
    const reading = triggers.settled();
    if (reading) await reading;
    // Decide every order first (no await in between), then write: each order's slots in order, the
    // orders side by side, so one order's formula read does not wait for another's append.
    const due: Firing[][] = [];
    for (const order of book.orders.values()) {
      if (!switches.enabled(order) || book.rigSuspended(order)) continue;
      const lastSlot = runs.lastSlot(order.scopedName);
      const quiet = this.#notBefore.get(order.scopedName);
      if (quiet && quiet.after === lastSlot && now < quiet.until) continue;
      if (order.trigger.kind === 'condition') {
        // Its check runs beside the tick; a passing one fires when it ends (see #startCheck).
        if (!runs.running(order.scopedName) && !this.#checking.has(order.scopedName)) this.#startCheck(order);
        continue;
      }
      const ev = this.#evaluate(order, now);
      if (!ev.due && !ev.skipped) {
        const until = cronNotBefore(order, now);
        if (until !== undefined) this.#notBefore.set(order.scopedName, { after: lastSlot, until });
        continue;
      }
      const slots = ev.fire.length > 0 ? ev.fire : [undefined];
      due.push(
        slots.map((slot, i) =>
          i === 0 && ev.skipped ? { order, slot, skipped: ev.skipped } : { order, slot },
        ),
      );
    }
    const written = await Promise.all(due.map((firings) => runs.fireInTurn(firings, now)));
    return written.reduce((a, b) => a + b, 0);
  }
}
