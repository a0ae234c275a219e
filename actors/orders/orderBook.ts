import { resolve } from 'node:path';
import type { FormulaProblem } from '../../machines/formulas/formula.ts';
import { renderProblem, type ConfigProblem } from '../../machines/config/problems.ts';
import type { Order } from '../../machines/orders/order.ts';
import { resolveOrder, targetRig } from '../../machines/orders/scope.ts';
import { AmbiguousError, NotFoundError } from '../runtime/errors.ts';
import type { LayerDir } from '../formulas/index.ts';
import { orderExecEnv } from './execEnv.ts';
import { resolveOrders, scanOrders } from './orderScan.ts';

/**
 * One city's orders as its formula layers define them: the orders by scoped name, the files and layers
 * they were read from, the rigs they work in, and what did not parse. Effects: `reload` reads files.
 */
export class OrderBook {
  #orders = new Map<string, Order>();
  #broken: { name: string; problems: FormulaProblem[] }[] = [];
  #problems: ConfigProblem[] = [];
  /** The problems already told to `onProblem` (each once). */
  readonly #told = new Set<string>();
  /** The file and text each order was parsed from. */
  readonly #texts = new Map<string, string>();
  /** The formula layer each order was read beside: its formula is cooked from that directory alone. */
  readonly #layers = new Map<string, LayerDir>();
  /** The file (absolute) each order was read from: its exec's `ORDER_DIR`. */
  readonly #paths = new Map<string, string>();
  /** The city's rigs as the last reload read them: where rig orders run, and which are suspended. */
  #rigs = new Map<string, { root: string; suspended: boolean }>();

  constructor(
    readonly path: string,
    /** Told once of each problem of `[orders]` a scan finds (the supervisor's log). */
    private readonly onProblem?: (problem: ConfigProblem) => void,
  ) {}

  /**
   * Re-reads the `orders/` directory of every formula layer: the city's (a later layer's order replaces an
   * earlier one of the same name), then each rig's own layers (the same, within the rig; scoped to it).
   * As upstream's scan, the names in `[orders].skip` and the files that say `enabled = false` are left
   * out, `[[orders.overrides]]` change the others' fields, and `[orders].max_timeout` caps each order's
   * timeout. An unchanged file keeps its order. `read` is told, as soon as the new orders are in place,
   * the scoped names read anew (changed, added or broken). Effects: reads city.toml, the packs and the
   * order files.
   */
  async reload(read: (fresh: readonly string[]) => void): Promise<void> {
    const scan = await scanOrders(this.path);
    const { orders: resolved, problems } = resolveOrders(scan);
    this.#rigs = new Map(scan.rigs.map((r) => [r.name, { root: r.root, suspended: r.suspended }]));
    const orders = new Map<string, Order>();
    const broken: { name: string; problems: FormulaProblem[] }[] = [];
    const fresh: string[] = [];
    for (const { scoped, file, key, parsed } of resolved) {
      const known = this.#orders.get(scoped);
      if (known && this.#texts.get(scoped) === key) {
        orders.set(scoped, known);
        continue;
      }
      fresh.push(scoped);
      if (parsed.ok) {
        orders.set(scoped, parsed.order);
        this.#texts.set(scoped, key);
        this.#layers.set(scoped, file.layer);
        this.#paths.set(scoped, file.path);
      } else broken.push({ name: scoped, problems: parsed.problems });
    }
    this.#orders = orders;
    read(fresh);
    this.#broken = broken;
    this.#problems = problems;
    for (const p of this.#problems) {
      const line = renderProblem(p);
      if (this.#told.has(line)) continue;
      this.#told.add(line);
      this.onProblem?.(p);
    }
  }

  /** Replaces the orders (the benchmark's 10,000 without files). */
  set(orders: Iterable<Order>): void {
    this.#orders = new Map([...orders].map((o) => [o.scopedName, o]));
    this.#layers.clear();
    this.#paths.clear();
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

  /** The formula layer the order `scopedName` was read beside (none for one set without files). */
  layer(scopedName: string): LayerDir | undefined {
    return this.#layers.get(scopedName);
  }

  /** Whether the rig `order` works in is suspended: it is not fired then (upstream skips it too). */
  rigSuspended(order: Order): boolean {
    const rig = targetRig(order);
    return rig !== undefined && this.#rigs.get(rig)?.suspended === true;
  }

  /** The environment an order's commands (its exec, its check) run with; they run in `GC_STORE_ROOT`. */
  execEnv(order: Order, prefix: string): Record<string, string> {
    const rig = order.rig === undefined ? undefined : this.#rigs.get(order.rig);
    const layer = this.#layers.get(order.scopedName);
    const file = this.#paths.get(order.scopedName);
    return orderExecEnv({
      cityPath: resolve(this.path),
      prefix,
      ...(rig ? { rig: { name: order.rig!, root: rig.root } } : {}),
      ...(file ? { orderFile: file } : {}),
      ...(layer ? { formulaLayer: layer.path } : {}),
    });
  }
}
