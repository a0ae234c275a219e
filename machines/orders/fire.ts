import type { EventDraft } from '../../schemas/event.ts';
import {
  compactBead,
  acceptAll,
  type Outcome,
  beadEvent,
  BeadEventType,
  type EventContext,
  formatId,
} from '../beads/index.ts';
import type { BeadModel, StoredBead } from '../beads/index.ts';
import type { Order } from './order.ts';
import type { Skipped } from './schedule.ts';

/** Labels and metadata of order records (upstream's vocabulary plus our slot keys). */
export const OrderLabel = {
  run: (scoped: string) => `order-run:${scoped}`,
  Tracking: 'order-tracking',
  Skipped: 'order-skipped',
  Wisp: 'wisp',
  Exec: 'exec',
  ExecFailed: 'exec-failed',
} as const;
export const SLOT_KEY = 'gc.order_slot';

/** One firing: its slot, and the missed slots recorded with it. */
export interface Firing {
  order: Order;
  slot: number | undefined;
  skipped?: Skipped;
  /** Why a formula order could not be dispatched (the run is recorded as `wisp-failed`). */
  failed?: string;
}

const orderEvent = (
  type: 'order.fired' | 'order.completed' | 'order.failed',
  order: Order,
  ctx: EventContext,
  message: string,
): EventDraft => ({
  type,
  actor: 'controller',
  subject: order.scopedName,
  message,
  ts: ctx.now,
  payload: {},
});

const slotText = (order: Order, slot: number) =>
  order.trigger.kind === 'event' ? `seq ${slot}` : new Date(slot).toISOString();

/**
 * The records of one firing, from id number `next` on: a skip record for missed slots (closed, labelled
 * `order-skipped`), the tracking bead (`order:<name>`, labels `order-run:<name>` + `order-tracking` +
 * `wisp` | `exec`, the slot in `gc.order_slot`; closed for a formula order, which is dispatched in this
 * same batch, open for an exec order until its command ends), and `order.fired` (+ `order.completed` for a
 * formula order). This is a pure function.
 */
export function firingRecords(
  f: Firing,
  prefix: string,
  next: number,
  ctx: EventContext,
  root?: StoredBead,
): { events: EventDraft[]; notices: EventDraft[]; tracking?: StoredBead } {
  const { order } = f;
  const run = OrderLabel.run(order.scopedName);
  const events: EventDraft[] = [];
  if (f.skipped) {
    const s = f.skipped;
    const bead = compactBead({
      id: formatId(prefix, next++),
      title: `order:${order.scopedName} skipped ${s.count} missed slot(s)`,
      status: 'closed',
      issue_type: 'task',
      created_at: ctx.now,
      updated_at: ctx.now,
      labels: [run, OrderLabel.Skipped],
      metadata: {
        [SLOT_KEY]: String(s.to),
        'gc.skipped_from': new Date(s.from).toISOString(),
        'gc.skipped_to': new Date(s.to).toISOString(),
        'gc.skipped_count': String(s.count),
        'gc.catch_up': order.catchUp,
      },
    });
    events.push(beadEvent(BeadEventType.Created, bead, ctx));
  }
  if (f.slot === undefined) return { events, notices: [] };
  const exec = order.exec !== undefined;
  const labels = [run, OrderLabel.Tracking, exec ? OrderLabel.Exec : OrderLabel.Wisp];
  if (f.failed !== undefined) labels.push('wisp-failed');
  if (order.trigger.kind === 'event') labels.push(`seq:${f.slot}`);
  const tracking = compactBead({
    id: formatId(prefix, next++),
    title: `order:${order.scopedName}`,
    status: exec ? 'open' : 'closed',
    issue_type: 'task',
    created_at: ctx.now,
    updated_at: ctx.now,
    labels,
    metadata: {
      [SLOT_KEY]: String(f.slot),
      ...(root ? { 'gc.wisp_root_id': root.id } : {}),
      ...(f.failed !== undefined ? { 'gc.error': f.failed } : {}),
    },
  });
  events.push(beadEvent(BeadEventType.Created, tracking, ctx));
  const message = `slot ${slotText(order, f.slot)}`;
  const notices = [orderEvent('order.fired', order, ctx, message)];
  if (f.failed !== undefined) notices.push(orderEvent('order.failed', order, ctx, f.failed));
  else if (!exec)
    notices.push(orderEvent('order.completed', order, ctx, root ? `workflow ${root.id}` : message));
  return { events, notices, tracking };
}

/** A firing with no formula to cook (an exec order, or only a skip record). This is a pure function. */
export function plainFiringDecider(f: Firing) {
  return (model: Readonly<BeadModel>, ctx: EventContext): Outcome<{ tracking?: StoredBead }> => {
    const { events, notices, tracking } = firingRecords(f, model.prefix, model.nextNumber, ctx);
    return acceptAll(tracking ? { tracking } : {}, events, notices);
  };
}

/** Closes an exec order's tracking bead with its outcome, and `order.completed` or `order.failed`. */
export function execDoneDecider(
  order: Order,
  trackingId: string,
  ok: boolean,
  output: { stdout: string; stderr: string; code: number; ms: number },
) {
  return (model: Readonly<BeadModel>, ctx: EventContext): Outcome<StoredBead | undefined> => {
    const bead = model.beads.get(trackingId)?.bead;
    if (!bead || bead.status === 'closed') return acceptAll(undefined, []);
    const next = compactBead({
      ...bead,
      status: 'closed',
      updated_at: ctx.now,
      labels: ok ? bead.labels : [...(bead.labels ?? []), OrderLabel.ExecFailed],
      metadata: {
        ...bead.metadata,
        'convergence.gate_exit_code': String(output.code),
        'convergence.gate_duration_ms': String(output.ms),
        'convergence.gate_stdout': output.stdout.slice(0, 64_000),
        'convergence.gate_stderr': output.stderr.slice(0, 64_000),
      },
    });
    const done = orderEvent(ok ? 'order.completed' : 'order.failed', order, ctx, `exit ${output.code}`);
    return acceptAll(next, [beadEvent(BeadEventType.Closed, next, ctx)], [done]);
  };
}

/**
 * Closes the tracking bead of an exec run nothing will finish (the controller stopped mid-command), as a
 * failed run (`exec-failed`, `gc.error`) with `order.failed`; already closed: nothing. This is a pure function.
 */
export function orphanDecider(order: Order, trackingId: string, reason: string) {
  return (model: Readonly<BeadModel>, ctx: EventContext): Outcome<StoredBead | undefined> => {
    const bead = model.beads.get(trackingId)?.bead;
    if (!bead || bead.status === 'closed') return acceptAll(undefined, []);
    const next = compactBead({
      ...bead,
      status: 'closed',
      updated_at: ctx.now,
      labels: [...(bead.labels ?? []), OrderLabel.ExecFailed],
      metadata: { ...bead.metadata, 'gc.error': reason },
    });
    return acceptAll(
      next,
      [beadEvent(BeadEventType.Closed, next, ctx)],
      [orderEvent('order.failed', order, ctx, reason)],
    );
  };
}
