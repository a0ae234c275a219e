import type { SchedulerEvent } from '../../machines/orders/scheduler.machine.ts';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import type { BeadStore } from '../beads/beadStore.ts';
import { AmbiguousError, NotFoundError } from '../runtime/errors.ts';
import type { LayerDir } from '../formulas/formulaLayers.ts';
import type { FormulaService } from '../formulas/formulaService.ts';
import type { JournalEvent } from '../runtime/journal/journal.ts';
import type { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import type { LogFolder } from '../runtime/logRuntime/decision.ts';
import type { FormulaProblem } from '../../machines/formulas/formula.ts';
import { renderProblem, type ConfigProblem } from '../../machines/config/problems.ts';
import { recordOf } from '../../machines/recorded.ts';
import { payloadAs } from '../../schemas/eventDecode.ts';
import {
  execDoneDecider,
  firingRecords,
  orphanDecider,
  OrderLabel,
  plainFiringDecider,
  SLOT_KEY,
  type Firing,
} from '../../machines/orders/fire.ts';
import { DEFAULT_CHECK_TIMEOUT_MS, runCheck } from './conditionCheck.ts';
import { orderExecEnv } from './execEnv.ts';
import type { Order } from '../../machines/orders/order.ts';
import { resolveOrders, scanOrders } from './orderScan.ts';
import { TriggerCursors } from './triggerCursors.ts';
import { qualifyPool, resolveOrder, targetRig } from '../../machines/orders/scope.ts';
import { runBeads } from '../../machines/orders/views.ts';
import type { StoredBead } from '../../machines/beads/model.ts';
import {
  cronNotBefore,
  evaluate,
  type CheckResult,
  type Evaluation,
  type OrderState,
} from '../../machines/orders/schedule.ts';

/** Our journaled enable/disable of an order (subject = scoped name; docs/compatibility.md). */
export const ORDER_ENABLED = 'order.enabled';
export const ORDER_DISABLED = 'order.disabled';

/**
 * Runs an exec order's command (injectable for tests): in `cwd`, with `env` added to the supervisor's
 * own environment.
 */
export type ExecRunner = (
  command: string,
  opts: { cwd: string; timeoutMs: number; env: Record<string, string> },
) => Promise<{ code: number; stdout: string; stderr: string }>;

const shell: ExecRunner = (command, { cwd, timeoutMs, env }) =>
  new Promise((resolve) => {
    const options = { cwd, timeout: timeoutMs, env: { ...process.env, ...env } };
    execFile('sh', ['-c', command], options, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });

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
 */
export class OrderService {
  #orders = new Map<string, Order>();
  #broken: { name: string; problems: FormulaProblem[] }[] = [];
  #problems: ConfigProblem[] = [];
  /** The problems already told to `onProblem` (each once). */
  readonly #told = new Set<string>();
  readonly #state = new Map<string, OrderState>();
  readonly #overrides = new Map<string, boolean>();
  /** When each order was last enabled through the API (slots before it are not owed). */
  readonly #since = new Map<string, number>();
  /** A cron order not due before `until` while its last slot is still `after` (skipped by the tick). */
  readonly #notBefore = new Map<string, { after: number | undefined; until: number }>();
  /** The file and text each order was parsed from. */
  readonly #texts = new Map<string, string>();
  /** The formula layer each order was read beside: its formula is cooked from that directory alone. */
  readonly #layers = new Map<string, LayerDir>();
  /** The file (absolute) each order was read from: its exec's `ORDER_DIR`. */
  readonly #paths = new Map<string, string>();
  /** The city's rigs as the last reload read them: where rig orders run, and which are suspended. */
  #rigs = new Map<string, { root: string; suspended: boolean }>();
  readonly #triggers: TriggerCursors;
  readonly #folder: LogFolder = { fold: (events) => this.#fold(events), typePrefix: 'order.' };
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<number> | undefined;
  /** The timer's reload and tick. */
  #pass: Promise<unknown> | undefined;
  #stopped = false;
  readonly #running = new Set<Promise<void>>();
  /** The condition check under way of each order (at most one), and what its result leads to. */
  readonly #checking = new Map<string, Promise<void>>();
  /** Kills the checks under way at stop. */
  readonly #abort = new AbortController();
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
    this.#triggers = new TriggerCursors(log.journal, options.onError);
  }

  /** Reads the newest seq of the types the event orders watch, where not read yet (see TriggerCursors). */
  #watchTriggers(): void {
    const types = [];
    for (const o of this.#orders.values()) if (o.trigger.kind === 'event') types.push(o.trigger.on);
    this.#triggers.watch(types);
  }

  /**
   * Folds the log (enable/disable, newest seq per type), reads the orders (rebuilding each one's state from
   * its beads), closes the runs a previous controller left open, and starts ticking.
   */
  async start(): Promise<void> {
    await this.log.attach(this.#folder, 0);
    await this.reload();
    await this.#closeOrphans();
    const tick = this.options.tickMs ?? DEFAULT_ORDER_TICK_MS;
    if (tick > 0) {
      this.#timer = setInterval(() => {
        if (this.#pass || this.#stopped) return;
        // An edited orders/ directory is seen at the next tick, as upstream's controller rescans it.
        this.#pass = this.reload()
          .then(() => (this.#stopped ? 0 : this.tick()))
          .catch((err: unknown) => void this.options.onError?.(err))
          .finally(() => (this.#pass = undefined));
      }, tick);
      this.#timer.unref();
    }
  }

  /** Stops ticking and waits for the tick and the commands under way; their records are written first. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#abort.abort();
    await this.#pass;
    await this.#ticking?.catch(() => undefined);
    await this.idle();
    await Promise.all(this.#running);
    this.log.detach(this.#folder);
    this.options.scheduler?.send({ type: 'STOP' });
  }

  /**
   * An exec whose tracking bead is still open was cut off by a stop (nothing runs it now): its run is closed
   * as failed (`order.failed`), as upstream's controller does at start, so the order is not held forever.
   */
  async #closeOrphans(): Promise<void> {
    for (const order of this.#orders.values()) {
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

  /**
   * Re-reads the `orders/` directory of every formula layer: the city's (a later layer's order replaces an
   * earlier one of the same name), then each rig's own layers (the same, within the rig; scoped to it).
   * As upstream's scan, the names in `[orders].skip` and the files that say `enabled = false` are left
   * out, `[[orders.overrides]]` change the others' fields, and `[orders].max_timeout` caps each order's
   * timeout. An unchanged file keeps its order (and what the tick knows of it). Effects: reads city.toml, the
   * packs and the order files.
   */
  async reload(): Promise<void> {
    const scan = await scanOrders(this.path);
    const { orders: resolved, problems } = resolveOrders(scan);
    this.#rigs = new Map(scan.rigs.map((r) => [r.name, { root: r.root, suspended: r.suspended }]));
    const orders = new Map<string, Order>();
    const broken: { name: string; problems: FormulaProblem[] }[] = [];
    for (const { scoped, file, key, parsed } of resolved) {
      const known = this.#orders.get(scoped);
      if (known && this.#texts.get(scoped) === key) {
        orders.set(scoped, known);
        continue;
      }
      this.#notBefore.delete(scoped);
      if (parsed.ok) {
        orders.set(scoped, parsed.order);
        this.#texts.set(scoped, key);
        this.#layers.set(scoped, file.layer);
        this.#paths.set(scoped, file.path);
      } else broken.push({ name: scoped, problems: parsed.problems });
    }
    this.#orders = orders;
    for (const order of orders.values())
      if (!this.#state.has(order.scopedName)) this.#state.set(order.scopedName, this.#rebuild(order));
    this.#watchTriggers();
    this.#broken = broken;
    this.#problems = problems;
    for (const p of this.#problems) {
      const line = renderProblem(p);
      if (this.#told.has(line)) continue;
      this.#told.add(line);
      this.options.onProblem?.(p);
    }
  }

  /** Replaces the orders (the benchmark's 10,000 without files). */
  setOrders(orders: Iterable<Order>): void {
    this.#orders = new Map([...orders].map((o) => [o.scopedName, o]));
    this.#layers.clear();
    this.#paths.clear();
    for (const order of this.#orders.values())
      if (!this.#state.has(order.scopedName)) this.#state.set(order.scopedName, this.#rebuild(order));
    this.#notBefore.clear();
    this.#watchTriggers();
  }

  /** The orders by scoped name. */
  get orders(): ReadonlyMap<string, Order> {
    return this.#orders;
  }

  get broken() {
    return this.#broken;
  }

  /** The problems of `[orders]` the last scan found (also in `/config/validate`). */
  get problems(): readonly ConfigProblem[] {
    return this.#problems;
  }

  /** Every order with its effective enabled flag. */
  list(): (Order & { effectiveEnabled: boolean })[] {
    return [...this.#orders.values()].map((o) => ({ ...o, effectiveEnabled: this.enabled(o) }));
  }

  enabled(o: Order): boolean {
    return this.#overrides.get(o.scopedName) ?? o.enabled;
  }

  /**
   * The order `name`: its scoped name, else its bare name (upstream `resolveOrder`).
   * @throws NotFoundError; AmbiguousError (409) for a bare name several rigs' orders share.
   */
  get(name: string): Order {
    const o = this.#orders.get(name);
    if (o) return o;
    const match = resolveOrder(this.#orders.values(), name);
    if (!match) throw new NotFoundError(`order ${name} not found`);
    if ('ambiguous' in match)
      throw new AmbiguousError(
        `ambiguous order name ${JSON.stringify(name)}; use scoped name: ${match.ambiguous.join(', ')}`,
      );
    return match.order;
  }

  state(name: string): OrderState {
    const s = this.#state.get(name) ?? {};
    const since = this.#since.get(name);
    return since === undefined ? s : { ...s, since };
  }

  /**
   * What each enabled order would do now, and why (`/orders/check`). As upstream, each enabled condition
   * order's `check` runs for this call (side by side); nothing is fired.
   */
  async check(now = this.clock()): Promise<{ order: Order; evaluation: Evaluation; state: OrderState }[]> {
    const reading = this.#triggers.settled();
    if (reading) await reading;
    const orders = [...this.#orders.values()];
    const checks = await Promise.all(
      orders.map((o) =>
        o.trigger.kind === 'condition' && this.enabled(o) ? this.#runCheck(o) : Promise.resolve(undefined),
      ),
    );
    return orders.map((order, i) => ({
      order,
      state: this.state(order.scopedName),
      evaluation: this.enabled(order)
        ? this.#evaluate(order, now, checks[i])
        : { due: false, reason: 'disabled', fire: [] },
    }));
  }

  #evaluate(order: Order, now: number, check?: CheckResult): Evaluation {
    const seq = order.trigger.kind === 'event' ? this.#triggers.newest(order.trigger.on) : 0;
    return evaluate(order, this.state(order.scopedName), now, seq, check);
  }

  /** Runs a condition order's `check` in its exec environment and directory, under the check timeout. */
  #runCheck(order: Order): Promise<CheckResult> {
    if (order.trigger.kind !== 'condition') return Promise.resolve({ kind: 'failed', error: 'no check' });
    const env = this.#execEnv(order);
    return runCheck(order.trigger.check, {
      cwd: env.GC_STORE_ROOT!,
      env,
      timeoutMs: this.options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS,
      signal: this.#abort.signal,
    });
  }

  /**
   * Starts a condition order's check without waiting for it (the tick never waits on a command): when it
   * passes and the order may still fire (enabled, its rig not suspended, no run open), it fires at once,
   * as upstream's tick fires a condition that passed. At most one check per order is under way.
   */
  #startCheck(order: Order): void {
    const name = order.scopedName;
    const p = this.#runCheck(order)
      .then(async (result) => {
        if (result.kind !== 'passed' || this.#stopped) return;
        if (this.#orders.get(name) !== order || !this.enabled(order) || this.#rigSuspended(order)) return;
        const now = this.clock();
        const ev = this.#evaluate(order, now, result);
        if (ev.due) await this.#fireInTurn([{ order, slot: ev.fire[0] }], now);
      })
      .catch((err: unknown) => this.options.onError?.(err))
      .finally(() => this.#checking.delete(name));
    this.#checking.set(name, p);
  }

  /** Resolves once the condition checks under way, and the firings they lead to, have ended. */
  async idle(): Promise<void> {
    while (this.#checking.size > 0) await Promise.all(this.#checking.values());
  }

  /**
   * Journals an enable or disable (`order.enabled` / `order.disabled`; a no-op when already so) and
   * resolves once it is folded. @throws NotFoundError; UnavailableError when the log cannot append.
   */
  async setEnabled(name: string, enabled: boolean, actor = 'api'): Promise<void> {
    const order = this.get(name);
    if (this.enabled(order) === enabled) return;
    await this.log.run(() => ({
      records: [
        recordOf({
          type: enabled ? ORDER_ENABLED : ORDER_DISABLED,
          actor,
          subject: order.scopedName,
          ts: new Date(this.clock()).toISOString(),
          message: `order ${order.scopedName} ${enabled ? 'enabled' : 'disabled'}`,
          payload: {
            name: order.name,
            scoped_name: order.scopedName,
            ...(order.rig ? { rig: order.rig } : {}),
          },
        }),
      ],
      commit: () => undefined,
    }));
  }

  /**
   * One scheduler tick at `now`: every enabled order is evaluated; each due slot (and each run of missed
   * slots to record as skipped) is written as one batch before the next is decided. Resolves the number
   * of firings written.
   */
  tick(now = this.clock()): Promise<number> {
    const scheduler = this.options.scheduler;
    scheduler?.send({ type: 'TICK', at: new Date(now).toISOString(), orders: this.#orders.size });
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
    const reading = this.#triggers.settled();
    if (reading) await reading;
    // Decide every order first (no await in between), then write: each order's slots in order, the
    // orders side by side, so one order's formula read does not wait for another's append.
    const due: Firing[][] = [];
    for (const order of this.#orders.values()) {
      if (!this.enabled(order) || this.#rigSuspended(order)) continue;
      const lastSlot = this.#state.get(order.scopedName)?.lastSlot;
      const quiet = this.#notBefore.get(order.scopedName);
      if (quiet && quiet.after === lastSlot && now < quiet.until) continue;
      if (order.trigger.kind === 'condition') {
        // Its check runs beside the tick; a passing one fires when it ends (see #startCheck).
        if (!this.#state.get(order.scopedName)?.running && !this.#checking.has(order.scopedName))
          this.#startCheck(order);
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
    const written = await Promise.all(due.map((firings) => this.#fireInTurn(firings, now)));
    return written.reduce((a, b) => a + b, 0);
  }

  /** Whether the rig `order` works in is suspended: it is not fired then (upstream skips it too). */
  #rigSuspended(order: Order): boolean {
    const rig = targetRig(order);
    return rig !== undefined && this.#rigs.get(rig)?.suspended === true;
  }

  async #fireInTurn(firings: readonly Firing[], now: number): Promise<number> {
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

  /** Writes one firing (and cooks its formula in the same batch); runs an exec order's command after. */
  async fire(f: Firing, now = this.clock()): Promise<void> {
    const { order } = f;
    let tracking: { id: string } | undefined;
    if (order.formula && f.slot !== undefined && f.failed === undefined) {
      // A rig order's bare pool is the rig's (upstream `qualifyPool`).
      const pool = order.pool === undefined ? undefined : qualifyPool(order.pool, order.rig);
      const layer = this.#layers.get(order.scopedName);
      await this.formulas.cook(order.formula, {
        actor: 'controller',
        // A rig's order runs in that rig's scope (its formula still comes from the order's own layer).
        ...(order.rig ? { rig: order.rig } : {}),
        ...(layer ? { layer } : {}),
        rootLabels: [OrderLabel.run(order.scopedName)],
        ...(pool ? { target: pool } : {}),
        extra: (root, next, ctx) => firingRecords(f, this.store.model.prefix, next, ctx, root),
      });
    } else {
      tracking = (await this.store.decide(plainFiringDecider(f), { actor: 'controller' })).tracking;
    }
    this.#recorded(order, f, now, tracking !== undefined);
    if (tracking && order.exec) this.#runExec(order, tracking.id);
  }

  #recorded(order: Order, f: Firing, now: number, running: boolean): void {
    const s = { ...this.state(order.scopedName) };
    const slot = f.slot ?? f.skipped?.to;
    if (slot !== undefined && (s.lastSlot === undefined || slot > s.lastSlot)) s.lastSlot = slot;
    if (f.slot !== undefined) s.lastRun = now;
    s.running = running;
    this.#state.set(order.scopedName, s);
  }

  #runExec(order: Order, trackingId: string): void {
    const exec = this.options.exec ?? shell;
    const started = this.clock();
    const env = this.#execEnv(order);
    // A rig order runs in its rig, as upstream runs it in its store's root.
    const p = exec(order.exec!, { cwd: env.GC_STORE_ROOT!, timeoutMs: order.timeoutMs, env })
      .then((out) =>
        this.store.decide(
          execDoneDecider(order, trackingId, out.code === 0, { ...out, ms: this.clock() - started }),
          { actor: 'controller' },
        ),
      )
      .then(() => {
        const s = this.#state.get(order.scopedName);
        if (s) s.running = false;
      })
      .catch((err) => this.options.onError?.(err))
      .finally(() => this.#running.delete(p));
    this.#running.add(p);
  }

  /** The environment an order's commands (its exec, its check) run with; they run in `GC_STORE_ROOT`. */
  #execEnv(order: Order): Record<string, string> {
    const rig = order.rig === undefined ? undefined : this.#rigs.get(order.rig);
    const layer = this.#layers.get(order.scopedName);
    const file = this.#paths.get(order.scopedName);
    return orderExecEnv({
      cityPath: resolve(this.path),
      prefix: this.store.model.prefix,
      ...(rig ? { rig: { name: order.rig!, root: rig.root } } : {}),
      ...(file ? { orderFile: file } : {}),
      ...(layer ? { formulaLayer: layer.path } : {}),
    });
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

  // A payload-less record of these types is a user's custom event (the emit route), never a switch.
  #fold(events: readonly JournalEvent[]): void {
    this.#triggers.fold(events);
    for (const e of events) {
      if ((e.type !== ORDER_ENABLED && e.type !== ORDER_DISABLED) || e.payload === undefined) continue;
      const { scoped_name } = payloadAs(this.log.journal.name, e, e.type);
      this.#overrides.set(scoped_name, e.type === ORDER_ENABLED);
      if (e.type === ORDER_ENABLED) this.#since.set(scoped_name, Date.parse(e.ts));
      else this.#since.delete(scoped_name);
      this.#notBefore.delete(scoped_name);
    }
  }

  /**
   * Order history: the beads labelled `order-run:<name>` (tracking beads, wisp roots, skip records),
   * newest first, created before `before` (ms) when given. @throws NotFoundError for an unknown order.
   */
  history(name: string, limit = 20, before?: number): StoredBead[] {
    const order = this.get(name);
    return runBeads(this.store.model, order.scopedName)
      .filter((b) => before === undefined || Date.parse(b.created_at) < before)
      .slice(0, limit);
  }

  /** A run record by bead id, with its order. @throws NotFoundError when it is not one. */
  run(beadId: string): { bead: StoredBead; order: Order | undefined } {
    const bead = this.store.model.beads.get(beadId)?.bead;
    const label = bead?.labels?.find((l) => l.startsWith('order-run:'));
    if (!bead || !label) throw new NotFoundError(`order run ${beadId} not found`);
    return { bead, order: this.#orders.get(label.slice('order-run:'.length)) };
  }
}
