import type { SchedulerEvent } from '../../machines/orders/scheduler.machine.ts';
import type { BeadStore } from '../beads/index.ts';
import type { FormulaService } from '../formulas/index.ts';
import type { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import type { ConfigProblem } from '../../machines/config/problems.ts';
import type { Firing } from '../../machines/orders/fire.ts';
import type { Order } from '../../machines/orders/order.ts';
import type { StoredBead } from '../../machines/beads/model.ts';
import type { Evaluation, OrderState } from '../../machines/orders/schedule.ts';
import { OrderBook } from './orderBook.ts';
import { OrderCommands, type ExecRunner } from './orderCommands.ts';
import { OrderRuns, type FiredRun } from './orderRuns.ts';
import { OrderScheduler } from './orderScheduler.ts';
import { OrderSwitches, switchRecord } from './orderSwitches.ts';
import { TriggerCursors } from './triggerCursors.ts';

/** Upstream's `[daemon] patrol_interval` default: orders are dispatched once per controller tick. */
export const DEFAULT_ORDER_TICK_MS = 30_000;

/** Options of {@link OrderService}. */
export interface OrderServiceOptions {
  clock?: () => number;
  /**
   * The scheduler's tick (default {@link DEFAULT_ORDER_TICK_MS}, upstream's controller patrol interval); 0 =
   * no timer (ticks are driven by the caller, as tests and the benchmark do).
   */
  tickMs?: number;
  exec?: ExecRunner;
  /** How long a condition order's `check` may run before it is killed (default 10 s, upstream's). */
  checkTimeoutMs?: number;
  onError?: (err: unknown) => void;
  /** Told of each tick's start and end (the scheduler's actor for the inspector). */
  scheduler?: { send(event: SchedulerEvent): void };
  /** Told once of each problem of `[orders]` a scan finds (the supervisor's log). */
  onProblem?: (problem: ConfigProblem) => void;
}

/**
 * One city's orders and their scheduler. Orders are read from the `orders/` directory beside each of the
 * city's formula layers (its packs', then `<city>/orders/`), each cooked from its own layer; a rig's own
 * layers (its packs', its `formulas_dir`) add its orders, scoped `<name>:rig:<rig>`. What has
 * happened is only in the city log: each firing (and each recorded skip of missed slots) is one batch
 * through the bead store — tracking bead, cooked molecule, `order.fired` — so after a restart the
 * scheduler rebuilds each order's last slot from the beads and fires no slot twice. Enable/disable are
 * journaled (`order.enabled` / `order.disabled`) and folded from the log.
 *
 * Its parts, one job each: OrderBook (the orders as read), OrderSwitches (the log's fold), OrderRuns (the
 * bead store's writes and reads), OrderCommands (exec and check commands), OrderScheduler (the ticks).
 */
export class OrderService {
  readonly #book: OrderBook;
  readonly #triggers: TriggerCursors;
  readonly #switches: OrderSwitches;
  readonly #runs: OrderRuns;
  readonly #scheduler: OrderScheduler;
  readonly #commands: OrderCommands;
  readonly clock: () => number;

  constructor(
    readonly city: string,
    readonly path: string,
    readonly store: BeadStore,
    readonly formulas: FormulaService,
    readonly log: LogRuntime,
    private readonly options: OrderServiceOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.#book = new OrderBook(path, options.onProblem);
    this.#triggers = new TriggerCursors(log.journal, options.onError);
    this.#switches = new OrderSwitches(log.journal.name, this.#triggers, (name) =>
      this.#scheduler.forget(name),
    );
    this.#commands = new OrderCommands(this.#book, store, this.clock, options);
    this.#runs = new OrderRuns(store, formulas, this.#book, this.#switches, this.#commands);
    this.#scheduler = new OrderScheduler({
      book: this.#book,
      switches: this.#switches,
      runs: this.#runs,
      commands: this.#commands,
      triggers: this.#triggers,
      clock: this.clock,
      scheduler: options.scheduler,
      onError: options.onError,
    });
  }

  /** Reads the newest seq of the types the event orders watch, where not read yet (see TriggerCursors). */
  #watchTriggers(): void {
    const types = [];
    for (const o of this.#book.orders.values()) if (o.trigger.kind === 'event') types.push(o.trigger.on);
    this.#triggers.watch(types);
  }

  /**
   * Folds the log (enable/disable, newest seq per type), reads the orders (rebuilding each one's state from
   * its beads), closes the runs a previous controller left open, and starts ticking.
   */
  async start(): Promise<void> {
    await this.log.attach(this.#switches, 0);
    await this.reload();
    await this.#runs.closeOrphans();
    this.#scheduler.start(this.options.tickMs ?? DEFAULT_ORDER_TICK_MS, () => this.reload());
  }

  /** Stops ticking and waits for the tick and the commands under way; their records are written first. */
  async stop(): Promise<void> {
    this.#scheduler.halt();
    this.#commands.abort();
    await this.#scheduler.settled();
    await this.#commands.settled();
    this.log.detach(this.#switches);
    this.options.scheduler?.send({ type: 'STOP' });
  }

  /**
   * Re-reads the orders (see OrderBook.reload); an unchanged file keeps its order and what the tick knows
   * of it, a new order's state is rebuilt from its beads. Effects: reads city.toml, the packs and the
   * order files.
   */
  reload(): Promise<void> {
    return this.#book.reload((fresh) => {
      for (const name of fresh) this.#scheduler.forget(name);
      this.#runs.track(this.#book.orders.values());
      this.#watchTriggers();
    });
  }

  /** Replaces the orders (the benchmark's 10,000 without files). */
  setOrders(orders: Iterable<Order>): void {
    this.#book.set(orders);
    this.#runs.track(this.#book.orders.values());
    this.#scheduler.forgetAll();
    this.#watchTriggers();
  }

  /** The orders by scoped name. */
  get orders(): ReadonlyMap<string, Order> {
    return this.#book.orders;
  }

  get broken() {
    return this.#book.broken;
  }

  /** The problems of `[orders]` the last scan found (also in `/config/validate`). */
  get problems(): readonly ConfigProblem[] {
    return this.#book.problems;
  }

  /** Every order with its effective enabled flag. */
  list(): (Order & { effectiveEnabled: boolean })[] {
    return [...this.#book.orders.values()].map((o) => ({ ...o, effectiveEnabled: this.enabled(o) }));
  }

  enabled(o: Order): boolean {
    return this.#switches.enabled(o);
  }

  /**
   * The order `name`: its scoped name, else its bare name (upstream `resolveOrder`).
   * @throws NotFoundError; AmbiguousError (409) for a bare name several rigs' orders share.
   */
  get(name: string): Order {
    return this.#book.get(name);
  }

  state(name: string): OrderState {
    return this.#runs.state(name);
  }

  /**
   * What each enabled order would do now, and why (`/orders/check`). As upstream, each enabled condition
   * order's `check` runs for this call (side by side); nothing is fired.
   */
  check(now = this.clock()): Promise<{ order: Order; evaluation: Evaluation; state: OrderState }[]> {
    return this.#scheduler.check(now);
  }

  /** Resolves once the condition checks under way, and the firings they lead to, have ended. */
  idle(): Promise<void> {
    return this.#scheduler.idle();
  }

  /**
   * Journals an enable or disable (`order.enabled` / `order.disabled`; a no-op when already so) and
   * resolves once it is folded. @throws NotFoundError; UnavailableError when the log cannot append.
   */
  async setEnabled(name: string, enabled: boolean, actor = 'api'): Promise<void> {
    const order = this.get(name);
    if (this.enabled(order) === enabled) return;
    await this.log.run(() => ({
      records: [switchRecord(order, enabled, actor, this.clock())],
      commit: () => undefined,
    }));
  }

  /**
   * One scheduler tick at `now`: every enabled order is evaluated; each due slot (and each run of missed
   * slots to record as skipped) is written as one batch before the next is decided. Resolves the number
   * of firings written.
   */
  tick(now = this.clock()): Promise<number> {
    return this.#scheduler.tick(now);
  }

  /** Writes one firing (and cooks its formula in the same batch); runs an exec order's command after. */
  fire(f: Firing, now = this.clock()): Promise<FiredRun> {
    return this.#runs.fire(f, now);
  }

  /**
   * `gc order run`: fires the order now, whatever its trigger says (upstream bypasses the gate, even a
   * disabled order's), through the same path as the scheduler: one firing whose slot is now (an event
   * order's: the newest seq of its event, so the events seen so far count as handled, as upstream's
   * `seq:<n>` label does). A formula order's wisp is cooked and routed to its pool; an exec order's
   * command runs and this resolves once its record is written, with its output.
   * @throws NotFoundError; AmbiguousError; what a cook throws (nothing is written then).
   */
  async runNow(name: string, now = this.clock()): Promise<{ order: Order; fired: FiredRun }> {
    const order = this.get(name);
    const reading = this.#triggers.settled();
    if (reading) await reading;
    const slot = order.trigger.kind === 'event' ? this.#triggers.newest(order.trigger.on) : now;
    const fired = await this.#runs.fire({ order, slot }, now);
    if (fired.exec) await fired.exec;
    return { order, fired };
  }

  /**
   * Order history: the beads labelled `order-run:<name>` (tracking beads, wisp roots, skip records),
   * newest first, created before `before` (ms) when given. @throws NotFoundError for an unknown order.
   */
  history(name: string, limit = 20, before?: number): StoredBead[] {
    return this.#runs.history(this.get(name), limit, before);
  }

  /** A run record by bead id, with its order. @throws NotFoundError when it is not one. */
  run(beadId: string): { bead: StoredBead; order: Order | undefined } {
    return this.#runs.run(beadId);
  }
}
