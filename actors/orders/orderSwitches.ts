import { recordOf, type RecordEvent } from '../../machines/recorded.ts';
import type { Order } from '../../machines/orders/order.ts';
import { payloadAs } from '../../schemas/eventDecode.ts';
import type { JournalEvent } from '../runtime/journal/journal.ts';
import type { LogFolder } from '../runtime/logRuntime/decision.ts';
import type { TriggerCursors } from './triggerCursors.ts';

/** Our journaled enable/disable of an order (subject = scoped name; docs/compatibility.md). */
export const ORDER_ENABLED = 'order.enabled';
export const ORDER_DISABLED = 'order.disabled';

/**
 * The orders' read model of the city log: the journaled enable/disable of each order (and when it was
 * last enabled), and the newest seq of each type the event orders watch.
 */
export class OrderSwitches implements LogFolder {
  readonly typePrefix = 'order.';
  readonly #overrides = new Map<string, boolean>();
  /** When each order was last enabled through the API (slots before it are not owed). */
  readonly #since = new Map<string, number>();

  constructor(
    private readonly logName: string,
    private readonly triggers: TriggerCursors,
    /** Told of the order each switch is about (its schedule's memo is stale then). */
    private readonly switched: (scopedName: string) => void,
  ) {}

  /** The order's enabled flag: the journaled switch, else its file's. */
  enabled(o: Order): boolean {
    return this.#overrides.get(o.scopedName) ?? o.enabled;
  }

  /** When the order was last enabled through the API, while it stays enabled. */
  since(scopedName: string): number | undefined {
    return this.#since.get(scopedName);
  }

  // A payload-less record of these types is a user's custom event (the emit route), never a switch.
  fold(events: readonly JournalEvent[]): void {
    this.triggers.fold(events);
    for (const e of events) {
      if ((e.type !== ORDER_ENABLED && e.type !== ORDER_DISABLED) || e.payload === undefined) continue;
      const { scoped_name } = payloadAs(this.logName, e, e.type);
      this.#overrides.set(scoped_name, e.type === ORDER_ENABLED);
      if (e.type === ORDER_ENABLED) this.#since.set(scoped_name, Date.parse(e.ts));
      else this.#since.delete(scoped_name);
      this.switched(scoped_name);
    }
  }
}

/** The record of an enable or disable of `order` (`order.enabled` / `order.disabled`). */
export function switchRecord(order: Order, enabled: boolean, actor: string, now: number): RecordEvent {
  return recordOf({
    type: enabled ? ORDER_ENABLED : ORDER_DISABLED,
    actor,
    subject: order.scopedName,
    ts: new Date(now).toISOString(),
    message: `order ${order.scopedName} ${enabled ? 'enabled' : 'disabled'}`,
    payload: {
      name: order.name,
      scoped_name: order.scopedName,
      ...(order.rig ? { rig: order.rig } : {}),
    },
  });
}
