import {
  firingRecords,
  orphanDecider,
  OrderLabel,
  plainFiringDecider,
  SLOT_KEY,
  type Firing,
} from '../../machines/orders/fire.ts';
import type { Order } from '../../machines/orders/order.ts';
import type { OrderState } from '../../machines/orders/schedule.ts';
import { qualifyPool } from '../../machines/orders/scope.ts';
import { runBeads } from '../../machines/orders/views.ts';
import type { StoredBead } from '../../machines/beads/model.ts';
import type { BeadStore } from '../beads/index.ts';
import type { FormulaService } from '../formulas/index.ts';
import { NotFoundError } from '../runtime/errors.ts';
import type { OrderBook } from './orderBook.ts';
import type { ExecOutput, OrderCommands } from './orderCommands.ts';
import type { OrderSwitches } from './orderSwitches.ts';

/** What one firing wrote: a formula order's wisp root and pool, an exec order's tracking bead and output. */
export interface FiredRun {
  root?: string;
  pool?: string;
  tracking?: string;
  exec?: Promise<ExecOutput | undefined>;
}

/**
 * What orders write to the city's bead store (each firing, each recorded skip of missed slots, the close
 * of a run a stopped controller left open) and what they read back from it: each order's last slot and
 * run, its history, a run by its bead. The beads are the record, so after a restart no slot fires twice.
 */
export class OrderRuns {
  readonly #state = new Map<string, OrderState>();

  constructor(
    private readonly store: BeadStore,
    private readonly formulas: FormulaService,
    private readonly book: OrderBook,
    private readonly switches: OrderSwitches,
    private readonly commands: OrderCommands,
  ) {}

  /** Rebuilds the state of each order that has none yet (from its beads). */
  track(orders: Iterable<Order>): void {
    for (const order of orders)
      if (!this.#state.has(order.scopedName)) this.#state.set(order.scopedName, this.#rebuild(order));
  }

  /** What is known of the order's runs, with when it was last enabled through the API. */
  state(name: string): OrderState {
    const s = this.#state.get(name) ?? {};
    const since = this.switches.since(name);
    return since === undefined ? s : { ...s, since };
  }

  /** Whether a run of the order is open (its exec under way). */
  running(name: string): boolean {
    return this.#state.get(name)?.running === true;
  }

  /** The last slot written for the order. */
  lastSlot(name: string): number | undefined {
    return this.#state.get(name)?.lastSlot;
  }

  /**
   * An exec whose tracking bead is still open was cut off by a stop (nothing runs it now): its run is closed
   * as failed (`order.failed`), as upstream's controller does at start, so the order is not held forever.
   */
  async closeOrphans(): Promise<void> {
    for (const order of this.book.orders.values()) {
      const s = this.#state.get(order.scopedName);
      if (!s?.running) continue;
      const open = runBeads(this.store.model, order.scopedName).filter(
        (b) => b.status !== 'closed' && b.labels?.includes(OrderLabel.Tracking),
      );
      for (const bead of open)
        await this.store.decide(
          orphanDecider(order, bead.id, 'the controller stopped before the command ended'),
          {
            actor: 'controller',
          },
        );
      s.running = false;
    }
  }

  /** Writes the firings in turn; one that cannot be written is recorded as a failed run. */
  async fireInTurn(firings: readonly Firing[], now: number): Promise<number> {
    for (const firing of firings) {
      try {
        await this.fire(firing, now);
      } catch (err) {
        // A formula that no longer cooks: the slot is recorded as a failed run, never dropped.
        firing.failed = err instanceof Error ? err.message : String(err);
        await this.store.decide(plainFiringDecider(firing), { actor: 'controller' });
        this.#recorded(firing.order, firing, now, false);
      }
    }
    return firings.length;
  }

  /**
   * Writes one firing (and cooks its formula in the same batch); starts an exec order's command after.
   * Resolves what was written: the wisp root and its pool (a formula order), the tracking bead, and the
   * exec's output to come (resolved once its record is written).
   */
  async fire(f: Firing, now: number): Promise<FiredRun> {
    const { order } = f;
    let tracking: { id: string } | undefined;
    const fired: FiredRun = {};
    if (order.formula && f.slot !== undefined && f.failed === undefined) {
      // A rig order's bare pool is the rig's (upstream `qualifyPool`).
      const pool = order.pool === undefined ? undefined : qualifyPool(order.pool, order.rig);
      const layer = this.book.layer(order.scopedName);
      const cooked = await this.formulas.cook(order.formula, {
        actor: 'controller',
        // A rig's order runs in that rig's scope (its formula still comes from the order's own layer).
        ...(order.rig ? { rig: order.rig } : {}),
        ...(layer ? { layer } : {}),
        rootLabels: [OrderLabel.run(order.scopedName)],
        ...(pool ? { target: pool } : {}),
        extra: (root, next, ctx) => firingRecords(f, this.store.model.prefix, next, ctx, root),
      });
      fired.root = cooked.root.id;
      if (pool) fired.pool = pool;
    } else {
      tracking = (await this.store.decide(plainFiringDecider(f), { actor: 'controller' })).tracking;
      if (tracking) fired.tracking = tracking.id;
    }
    this.#recorded(order, f, now, tracking !== undefined);
    if (tracking && order.exec)
      fired.exec = this.commands.runExec(order, tracking.id, () => {
        const s = this.#state.get(order.scopedName);
        if (s) s.running = false;
      });
    return fired;
  }

  #recorded(order: Order, f: Firing, now: number, running: boolean): void {
    const s = { ...this.state(order.scopedName) };
    const slot = f.slot ?? f.skipped?.to;
    if (slot !== undefined && (s.lastSlot === undefined || slot > s.lastSlot)) s.lastSlot = slot;
    if (f.slot !== undefined) s.lastRun = now;
    s.running = running;
    this.#state.set(order.scopedName, s);
  }

  /**
   * An order's last slot and run, from the beads labelled `order-run:<name>` (the journal's record): at
   * start, and for an order first seen later (a file added, or one that did not parse at start), so a slot
   * fired before is never fired again.
   */
  #rebuild(order: Order): OrderState {
    const labels = this.store.model.indexes.byLabel;
    const label = OrderLabel.run(order.scopedName);
    const s: OrderState = {};
    for (const half of [labels.open, labels.closed]) {
      for (const id of half.get(label) ?? []) {
        const bead = this.store.model.beads.get(id)?.bead;
        const slot = Number(bead?.metadata?.[SLOT_KEY]);
        if (!bead || !Number.isFinite(slot) || bead.metadata?.[SLOT_KEY] === undefined) continue;
        if (s.lastSlot === undefined || slot > s.lastSlot) s.lastSlot = slot;
        if (bead.labels?.includes(OrderLabel.Tracking)) {
          const at = Date.parse(bead.created_at);
          if (s.lastRun === undefined || at > s.lastRun) s.lastRun = at;
          if (bead.status !== 'closed') s.running = true;
        }
      }
    }
    return s;
  }

  /**
   * Order history: the beads labelled `order-run:<name>` (tracking beads, wisp roots, skip records),
   * newest first, created before `before` (ms) when given.
   */
  history(order: Order, limit: number, before?: number): StoredBead[] {
    return runBeads(this.store.model, order.scopedName)
      .filter((b) => before === undefined || Date.parse(b.created_at) < before)
      .slice(0, limit);
  }

  /** A run record by bead id, with its order. @throws NotFoundError when it is not one. */
  run(beadId: string): { bead: StoredBead; order: Order | undefined } {
    const bead = this.store.model.beads.get(beadId)?.bead;
    const label = bead?.labels?.find((l) => l.startsWith('order-run:'));
    if (!bead || !label) throw new NotFoundError(`order run ${beadId} not found`);
    return { bead, order: this.book.orders.get(label.slice('order-run:'.length)) };
  }
}
