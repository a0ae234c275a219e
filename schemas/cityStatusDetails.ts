import { Type } from 'typebox';

/**
 * The nested blocks of upstream's StatusBody, served inline and named as upstream names them when the
 * OpenAPI document is generated (http/openapiNames.ts). Each is optional in the status: a block we cannot
 * read is left out, as upstream leaves out what it could not probe.
 */

const int = (description: string) => Type.Integer({ format: 'int64', description });

/** Upstream StatusAgentDetail: one row per agent as `GET /agents` lists it (pool instances each). */
export const StatusAgentDetail = Type.Object(
  {
    name: Type.String({ description: 'Unqualified name (a pool instance: its own name, `base-N`).' }),
    qualified_name: Type.String({ description: '`dir/base` for a rig agent, else the bare name.' }),
    scope: Type.String({ description: '`city` or `rig`.' }),
    running: Type.Boolean({ description: 'Its session is running.' }),
    suspended: Type.Boolean({ description: 'The agent or its rig is suspended.' }),
    draining: Type.Optional(Type.Boolean({ description: 'Its pool is draining this instance.' })),
    expanded: Type.Optional(Type.Boolean({ description: 'A pool instance row.' })),
    group_name: Type.Optional(Type.String({ description: 'The pool it belongs to, for an instance.' })),
    scale_label: Type.Optional(Type.String()),
    session_name: Type.Optional(Type.String({ description: 'Its runtime session name.' })),
  },
  { additionalProperties: false },
);

/** Upstream StatusRigDetail. */
export const StatusRigDetail = Type.Object(
  {
    name: Type.String({ description: 'Rig name.' }),
    path: Type.String({ description: 'Rig directory.' }),
    suspended: Type.Boolean({ description: 'Whether the rig is suspended.' }),
  },
  { additionalProperties: false },
);

/** Upstream StatusNamedSessionDetail. */
export const StatusNamedSessionDetail = Type.Object(
  {
    identity: Type.String({ description: 'Qualified named-session identity.' }),
    status: Type.String({ description: 'Its lifecycle status.' }),
    mode: Type.String({ description: 'Its mode (on-demand, always, …).' }),
  },
  { additionalProperties: false },
);

/** Upstream StatusSessionCountsDetail. */
export const StatusSessionCountsDetail = Type.Object(
  {
    active: int('Sessions in state active.'),
    suspended: int('Sessions in state suspended.'),
  },
  { additionalProperties: false },
);

/** Upstream BeadsDiagnostic: which bead store the city uses. */
export const BeadsDiagnostic = Type.Object(
  {
    beads_store: Type.String(),
    native_store_eligible: Type.Boolean(),
    preflight_gate: Type.Optional(Type.String()),
    preflight_reason: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** Upstream StatusStoreHealth: the Dolt bead store's size and its last maintenance. */
export const StatusStoreHealth = Type.Object(
  {
    path: Type.String({ description: 'Store directory.' }),
    size_bytes: int('Bytes of the store directory.'),
    live_rows: int('Live bead rows.'),
    ratio_mb_per_row: Type.Number({ format: 'double', description: 'Megabytes per row.' }),
    warning: Type.Boolean({ description: 'Maintenance is overdue.' }),
    threshold_mb_per_row: Type.Number({ format: 'double', description: 'The ratio that warns.' }),
    last_gc_at: Type.Optional(Type.String({ description: 'RFC 3339 time of the last maintenance run.' })),
    last_gc_status: Type.Optional(Type.String({ description: '`success` or `failed`.' })),
  },
  { additionalProperties: false },
);
