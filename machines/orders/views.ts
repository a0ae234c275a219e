import type { MonitorFeedItem } from '../../schemas/formulas.ts';
import type {
  OrderCheckResponse,
  OrderHistoryDetail,
  OrderHistoryEntry,
  OrderResponse,
} from '../../schemas/orders.ts';
import type { BeadModel, StoredBead } from '../beads/index.ts';
import { formulaFeed, type WorkflowScope } from '../formulas/index.ts';
import { OrderLabel } from './fire.ts';
import type { Order } from './order.ts';
import type { Evaluation } from './schedule.ts';
import { qualifyPool } from './scope.ts';

/** Where every order record lives: the city's one bead store. */
export const storeRef = (city: string): string => `city:${city}`;

/** Upstream's OrderResponse of `order` with its effective flag. This is a pure function. */
export function orderResponse(order: Order, enabled: boolean): OrderResponse {
  const t = order.trigger;
  const out: OrderResponse = {
    name: order.name,
    scoped_name: order.scopedName,
    type: order.exec !== undefined ? 'exec' : 'formula',
    enabled,
    capture_output: order.exec !== undefined,
    timeout_ms: order.timeoutMs,
    trigger: t.kind,
    gate: t.kind,
  };
  if (order.description) out.description = order.description;
  if (order.formula) out.formula = order.formula;
  if (order.exec) out.exec = order.exec;
  if (order.pool) out.pool = order.pool;
  if (order.rig) out.rig = order.rig;
  if (order.timeout) out.timeout = order.timeout;
  if (t.kind === 'cron') out.schedule = t.schedule;
  if (t.kind === 'cooldown') out.interval = t.interval;
  if (t.kind === 'event') out.on = t.on;
  if (t.kind === 'condition') out.check = t.check;
  return out;
}

/** The newest tracking bead of `scoped` (any status), or undefined. This is a pure function. */
export function lastTracking(model: Readonly<BeadModel>, scoped: string): StoredBead | undefined {
  let best: { bead: StoredBead; ordinal: number } | undefined;
  const label = OrderLabel.run(scoped);
  for (const half of [model.indexes.byLabel.open, model.indexes.byLabel.closed]) {
    for (const id of half.get(label) ?? []) {
      const e = model.beads.get(id);
      if (e && e.bead.labels?.includes(OrderLabel.Tracking) && (!best || e.ordinal > best.ordinal)) best = e;
    }
  }
  return best?.bead;
}

/** Upstream's outcome of a tracking bead: failed, canceled, success; undefined while it runs. Pure. */
export function runOutcome(bead: StoredBead): string | undefined {
  const labels = bead.labels ?? [];
  if (labels.includes(OrderLabel.ExecFailed) || labels.includes('wisp-failed')) return 'failed';
  if (labels.includes('wisp-canceled')) return 'canceled';
  if (bead.status !== 'closed') return undefined;
  return 'success';
}

/** One `/orders/check` entry. This is a pure function. */
export function checkResponse(
  order: Order,
  evaluation: Evaluation,
  last: StoredBead | undefined,
): OrderCheckResponse {
  const out: OrderCheckResponse = {
    name: order.name,
    scoped_name: order.scopedName,
    due: evaluation.due,
    reason: evaluation.reason,
  };
  if (order.rig) out.rig = order.rig;
  if (last) {
    out.last_run = last.created_at;
    const outcome = runOutcome(last);
    if (outcome) out.last_run_outcome = outcome;
  }
  return out;
}

/** Every bead recording a run of `scoped`, newest first. This is a pure function. */
export function runBeads(model: Readonly<BeadModel>, scoped: string): StoredBead[] {
  const label = OrderLabel.run(scoped);
  return [
    ...(model.indexes.byLabel.open.get(label) ?? []),
    ...(model.indexes.byLabel.closed.get(label) ?? []),
  ]
    .map((id) => model.beads.get(id))
    .filter((e) => e !== undefined)
    .sort((a, b) => b.ordinal - a.ordinal)
    .map((e) => e.bead);
}

/** One `/orders/history` entry for a run bead of `order`. This is a pure function. */
export function historyEntry(city: string, order: Order, bead: StoredBead): OrderHistoryEntry {
  const meta = bead.metadata ?? {};
  const exec = order.exec !== undefined;
  const out: OrderHistoryEntry = {
    bead_id: bead.id,
    // A rig's order runs in that rig's store (upstream); a city's in the city's.
    store_ref: order.rig ? `rig:${order.rig}` : storeRef(city),
    name: order.name,
    scoped_name: order.scopedName,
    created_at: bead.created_at,
    labels: bead.labels ?? [],
    capture_output: exec,
    has_output: exec && bead.labels?.includes(OrderLabel.Tracking) === true,
  };
  if (order.rig) out.rig = order.rig;
  if (meta['convergence.gate_duration_ms'] !== undefined)
    out.duration_ms = meta['convergence.gate_duration_ms'];
  if (meta['convergence.gate_exit_code'] !== undefined) out.exit_code = meta['convergence.gate_exit_code'];
  if (meta['gc.error'] !== undefined) out.error = meta['gc.error'];
  if (meta['gc.wisp_root_id'] !== undefined) out.wisp_root_id = meta['gc.wisp_root_id'];
  return out;
}

/** `/order/history/{bead_id}`: the run's captured stdout, a newline, then its stderr. Pure. */
export function historyDetail(city: string, bead: StoredBead): OrderHistoryDetail {
  const meta = bead.metadata ?? {};
  const stdout = meta['convergence.gate_stdout'] ?? '';
  const stderr = meta['convergence.gate_stderr'] ?? '';
  return {
    bead_id: bead.id,
    store_ref: storeRef(city),
    created_at: bead.created_at,
    labels: bead.labels ?? [],
    output: stderr === '' ? stdout : `${stdout}\n${stderr}`,
  };
}

const FEED_RANK = ['active', 'pending', 'failed', 'done', 'skipped'];
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `/orders/feed`: the workflow runs (as `/formulas/feed`) plus one item per tracking bead (`order:<id>`,
 * status active while open, failed, or done), most active first, then workflow items, then formula items,
 * newest first, then by title; default 50, at most 500. Only those of `scope` when given: an order's run is
 * in its rig's scope when the order was read from a rig. This is a pure function.
 */
export function ordersFeed(
  model: Readonly<BeadModel>,
  city: string,
  orders: ReadonlyMap<string, Order>,
  limit: number | undefined,
  scope?: WorkflowScope,
): MonitorFeedItem[] {
  const items: MonitorFeedItem[] = formulaFeed(model, city, 500, scope);
  for (const id of [
    ...(model.indexes.byLabel.open.get(OrderLabel.Tracking) ?? []),
    ...(model.indexes.byLabel.closed.get(OrderLabel.Tracking) ?? []),
  ]) {
    const bead = model.beads.get(id)?.bead;
    if (!bead) continue;
    const scoped = bead.title.replace(/^order:/, '');
    const order = orders.get(scoped);
    const at: WorkflowScope = order?.rig ? { kind: 'rig', ref: order.rig } : { kind: 'city', ref: city };
    if (scope && (at.kind !== scope.kind || at.ref !== scope.ref)) continue;
    const exec = bead.labels?.includes(OrderLabel.Exec) === true;
    const outcome = runOutcome(bead);
    items.push({
      id: `order:${bead.id}`,
      type: exec ? 'exec' : 'formula',
      title: bead.title,
      status: bead.status !== 'closed' ? 'active' : outcome === 'failed' ? 'failed' : 'done',
      target: exec ? 'exec' : order?.pool ? qualifyPool(order.pool, order.rig) : (order?.formula ?? scoped),
      scope_kind: at.kind,
      scope_ref: at.ref,
      started_at: bead.created_at,
      updated_at: bead.updated_at ?? bead.created_at,
      bead_id: bead.id,
      store_ref: `${at.kind}:${at.ref}`,
      detail_available: exec,
      ...(bead.metadata?.['gc.wisp_root_id'] ? { workflow_id: bead.metadata['gc.wisp_root_id'] } : {}),
    });
  }
  const rank = (i: MonitorFeedItem) => FEED_RANK.indexOf(i.status);
  items.sort(
    (a, b) =>
      rank(a) - rank(b) ||
      Number(b.workflow_id !== undefined) - Number(a.workflow_id !== undefined) ||
      Number(b.type === 'formula') - Number(a.type === 'formula') ||
      cmp(b.updated_at, a.updated_at) ||
      cmp(a.title, b.title),
  );
  const n = limit === undefined || limit === 0 ? 50 : Math.min(limit, 500);
  return items.slice(0, n);
}
