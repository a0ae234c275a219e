import { Type, type Static } from 'typebox';
import { nullableArray, stringMap } from './beadsCommon.ts';
import { MonitorFeedItemSchema } from './formulas.ts';
import { QueryInteger } from './queryIntegerSchema.ts';

/**
 * The orders family's wire schemas, field for field upstream's (`OrderResponse`, `OrderCheckResponse`,
 * `OrderHistoryEntry`, …). Upstream's optional strings are absent, never empty.
 */

/** `GET /order/{name}` and one item of `GET /orders`. */
export const OrderResponseSchema = Type.Object(
  {
    name: Type.String({ description: 'Order name (orders/<name>.toml).' }),
    scoped_name: Type.String({ description: 'Rig-qualified key: `<name>` or `<name>:rig:<rig>`.' }),
    type: Type.String({ description: '`formula` or `exec`.' }),
    enabled: Type.Boolean({
      description: 'Effective flag: the file’s `enabled`, or the last enable/disable.',
    }),
    capture_output: Type.Boolean({ description: 'Whether run output is kept in the history (exec orders).' }),
    timeout_ms: Type.Integer({ description: 'Effective timeout (default 300 s exec, 30 s formula).' }),
    description: Type.Optional(Type.String()),
    formula: Type.Optional(Type.String()),
    exec: Type.Optional(Type.String()),
    pool: Type.Optional(Type.String()),
    rig: Type.Optional(Type.String()),
    trigger: Type.Optional(Type.String({ description: 'cron | cooldown | condition | event | manual' })),
    gate: Type.Optional(Type.String({ deprecated: true, description: 'Deprecated alias of trigger.' })),
    schedule: Type.Optional(Type.String()),
    interval: Type.Optional(Type.String()),
    on: Type.Optional(Type.String()),
    check: Type.Optional(Type.String()),
    timeout: Type.Optional(Type.String()),
    env: Type.Optional(stringMap()),
  },
  { additionalProperties: false },
);
export type OrderResponse = Static<typeof OrderResponseSchema>;

export const OrderListBodySchema = Type.Object(
  { orders: nullableArray(OrderResponseSchema, { description: 'Registered orders.' }) },
  { additionalProperties: false },
);

/** One order's trigger evaluated now. */
export const OrderCheckResponseSchema = Type.Object(
  {
    name: Type.String(),
    scoped_name: Type.String(),
    rig: Type.Optional(Type.String()),
    due: Type.Boolean(),
    reason: Type.String({ description: 'Why it is due or not.' }),
    last_run: Type.Optional(Type.String({ description: 'RFC 3339.' })),
    last_run_outcome: Type.Optional(Type.String({ description: 'success | failed | canceled' })),
  },
  { additionalProperties: false },
);
export type OrderCheckResponse = Static<typeof OrderCheckResponseSchema>;

export const OrderCheckListBodySchema = Type.Object(
  { checks: nullableArray(OrderCheckResponseSchema, { description: 'Order trigger evaluations.' }) },
  { additionalProperties: false },
);

/** One run record (a tracking bead, a dispatched wisp root or our skip record). */
export const OrderHistoryEntrySchema = Type.Object(
  {
    bead_id: Type.String(),
    store_ref: Type.String(),
    name: Type.String(),
    scoped_name: Type.String(),
    rig: Type.Optional(Type.String()),
    created_at: Type.String(),
    labels: nullableArray(Type.String()),
    capture_output: Type.Boolean(),
    has_output: Type.Boolean(),
    duration_ms: Type.Optional(Type.String()),
    exit_code: Type.Optional(Type.String()),
    signal: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
    wisp_root_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type OrderHistoryEntry = Static<typeof OrderHistoryEntrySchema>;

export const OrderHistoryListBodySchema = Type.Object(
  { entries: nullableArray(OrderHistoryEntrySchema, { description: 'Order history entries.' }) },
  { additionalProperties: false },
);

export const OrderHistoryDetailSchema = Type.Object(
  {
    bead_id: Type.String(),
    store_ref: Type.String(),
    created_at: Type.String(),
    labels: nullableArray(Type.String()),
    output: Type.String({ description: 'Captured stdout, a newline, then stderr.' }),
  },
  { additionalProperties: false },
);
export type OrderHistoryDetail = Static<typeof OrderHistoryDetailSchema>;

/** `GET /orders/feed`. */
export const OrdersFeedBodySchema = Type.Object(
  {
    items: nullableArray(MonitorFeedItemSchema),
    partial: Type.Boolean(),
    partial_errors: Type.Optional(nullableArray(Type.String())),
  },
  { additionalProperties: false },
);

export const OrdersCheckQuerySchema = Type.Object(
  { fresh: Type.Optional(Type.Boolean({ description: 'Evaluate now (every check is fresh here).' })) },
  { additionalProperties: false },
);

export const OrdersFeedQuerySchema = Type.Object(
  {
    scope_kind: Type.Optional(Type.String({ description: 'Scope kind (city or rig).' })),
    scope_ref: Type.Optional(Type.String({ description: 'Scope reference.' })),
    limit: Type.Optional(QueryInteger('Maximum number of feed items (0 = the default, 50; at most 500).')),
  },
  { additionalProperties: false },
);

export const OrdersHistoryQuerySchema = Type.Object(
  {
    scoped_name: Type.String({ minLength: 1, description: 'Scoped order name.' }),
    limit: Type.Optional(QueryInteger('Maximum number of history entries (0 = the default, 20).')),
    before: Type.Optional(
      Type.String({ minLength: 1, description: 'Only entries created before this RFC 3339 timestamp.' }),
    ),
  },
  { additionalProperties: false },
);

export const OrderHistoryDetailQuerySchema = Type.Object(
  {
    store_ref: Type.Optional(
      Type.String({ description: 'Store of the bead (`city:<city>`; the only store here).' }),
    ),
  },
  { additionalProperties: false },
);

/** `POST /order/{name}/enable|disable`: upstream's OKResponseBody, `status` = `enabled` | `disabled`. */
export const OrderToggleResponseSchema = Type.Object(
  { status: Type.String({ description: '`enabled` or `disabled`.' }) },
  { additionalProperties: false },
);

/**
 * Ours: `POST /order/{name}/run` (`gc order run`): what running the order now wrote. A formula order's
 * wisp root (labelled `order-run:<scoped_name>`) and the pool it was routed to; an exec order's tracking
 * bead, exit code and output.
 */
export const OrderRunResponseSchema = Type.Object(
  {
    status: Type.Literal('executed'),
    name: Type.String({ description: 'Order name.' }),
    scoped_name: Type.String({ description: 'Rig-qualified key: `<name>` or `<name>:rig:<rig>`.' }),
    type: Type.String({ description: '`formula` or `exec`.' }),
    wisp_root_id: Type.Optional(
      Type.String({ description: 'The cooked wisp’s root bead (formula orders).' }),
    ),
    pool: Type.Optional(Type.String({ description: 'Its `gc.routed_to` (formula orders with a pool).' })),
    tracking_bead_id: Type.Optional(Type.String({ description: 'The run’s tracking bead (exec orders).' })),
    exit_code: Type.Optional(Type.Integer({ description: 'The command’s exit status (exec orders).' })),
    stdout: Type.Optional(Type.String({ description: 'The command’s standard output (exec orders).' })),
    stderr: Type.Optional(Type.String({ description: 'The command’s standard error (exec orders).' })),
  },
  { additionalProperties: false, $id: 'OrderRunResponse', title: 'OrderRunResponse' },
);
export type OrderRunResponse = Static<typeof OrderRunResponseSchema>;
