import { Type, type Static } from 'typebox';
import { WorkflowDepSchema } from './beads.ts';
import { nullableArray, stringMap } from './beadsCommon.ts';
import { QueryInteger } from './queryIntegerSchema.ts';

/**
 * The formulas and workflows (molecules) families' wire schemas, field for field upstream's
 * (`FormulaDetailResponse`, `WorkflowSnapshotResponse`, …), plus our cook operation's body and answer.
 */

const scopeProps = {
  scope_kind: Type.Optional(Type.String({ description: 'Scope kind (city or rig).' })),
  scope_ref: Type.Optional(Type.String({ description: 'Scope reference.' })),
};

/** One declared variable. */
export const FormulaVarDefSchema = Type.Object(
  {
    name: Type.String(),
    type: Type.String(),
    description: Type.Optional(Type.String()),
    default: Type.Optional(Type.Unknown()),
    required: Type.Optional(Type.Boolean()),
    enum: Type.Optional(nullableArray(Type.String())),
    pattern: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type FormulaVarDef = Static<typeof FormulaVarDefSchema>;

/** One compiled step. */
export const FormulaStepSchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    kind: Type.String(),
    type: Type.Optional(Type.String()),
    assignee: Type.Optional(Type.String()),
    labels: Type.Optional(nullableArray(Type.String())),
    metadata: Type.Optional(stringMap()),
  },
  { additionalProperties: false },
);
export type FormulaStep = Static<typeof FormulaStepSchema>;

export const FormulaPreviewEdgeSchema = Type.Object(
  { from: Type.String(), to: Type.String(), kind: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
export type FormulaPreviewEdge = Static<typeof FormulaPreviewEdgeSchema>;

export const FormulaPreviewNodeSchema = Type.Object(
  { id: Type.String(), kind: Type.String(), title: Type.String(), scope_ref: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
export type FormulaPreviewNode = Static<typeof FormulaPreviewNodeSchema>;

export const FormulaPreviewSchema = Type.Object(
  { nodes: nullableArray(FormulaPreviewNodeSchema), edges: nullableArray(FormulaPreviewEdgeSchema) },
  { additionalProperties: false },
);

/** `GET /formulas/{name}`, `/formula/{name}`, `POST /formulas/{name}/preview`. */
export const FormulaDetailSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    steps: nullableArray(FormulaStepSchema),
    deps: nullableArray(FormulaPreviewEdgeSchema),
    var_defs: nullableArray(FormulaVarDefSchema),
    preview: FormulaPreviewSchema,
    version: Type.Optional(
      Type.String({
        description:
          'Ours, with `?extras=true`: the formula’s `version` as a string (`"1"` when unset), as upstream’s JSON handler sends it.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FormulaDetail = Static<typeof FormulaDetailSchema>;

export const FormulaRecentRunSchema = Type.Object(
  {
    workflow_id: Type.String(),
    status: Type.String(),
    target: Type.String(),
    started_at: Type.String(),
    updated_at: Type.String(),
  },
  { additionalProperties: false },
);
export type FormulaRecentRun = Static<typeof FormulaRecentRunSchema>;

export const FormulaSummarySchema = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    var_defs: nullableArray(FormulaVarDefSchema),
    run_count: Type.Integer(),
    recent_runs: nullableArray(FormulaRecentRunSchema),
    version: Type.Optional(
      Type.String({
        description:
          'Ours, with `?extras=true`: the formula’s `version` as a string (`"1"` when unset), as upstream’s JSON handler sends it.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `GET /formulas`. */
export const FormulaListBodySchema = Type.Object(
  {
    items: nullableArray(FormulaSummarySchema),
    partial: Type.Boolean({ description: 'True when some formula files could not be read (see the log).' }),
    total: Type.Integer(),
  },
  { additionalProperties: false },
);

/** `GET /formulas/{name}/runs`. */
export const FormulaRunsSchema = Type.Object(
  {
    formula: Type.String(),
    partial: Type.Boolean(),
    partial_errors: Type.Optional(nullableArray(Type.String())),
    recent_runs: nullableArray(FormulaRecentRunSchema),
    run_count: Type.Integer(),
  },
  { additionalProperties: false },
);

/** One monitor feed item: a workflow run (formulas, orders) or an order run. */
export const MonitorFeedItemSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.String(),
    title: Type.String(),
    status: Type.String(),
    target: Type.String(),
    scope_kind: Type.String(),
    scope_ref: Type.String(),
    started_at: Type.String(),
    updated_at: Type.String(),
    workflow_id: Type.Optional(Type.String()),
    root_bead_id: Type.Optional(Type.String()),
    logical_bead_id: Type.Optional(Type.String()),
    bead_id: Type.Optional(Type.String()),
    attached_bead_id: Type.Optional(Type.String()),
    root_store_ref: Type.Optional(Type.String()),
    store_ref: Type.Optional(Type.String()),
    detail_available: Type.Optional(Type.Boolean()),
    run_detail_available: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type MonitorFeedItem = Static<typeof MonitorFeedItemSchema>;

/** `GET /formulas/feed` and `GET /orders/feed`. */
export const FeedBodySchema = Type.Object(
  {
    items: nullableArray(MonitorFeedItemSchema),
    partial: Type.Boolean(),
    partial_errors: Type.Optional(nullableArray(Type.String())),
  },
  { additionalProperties: false },
);

/** Query of list, feed and runs. */
export const FormulaScopeQuerySchema = Type.Object(scopeProps, { additionalProperties: false });

export const FormulaLimitQuerySchema = Type.Object(
  {
    ...scopeProps,
    limit: Type.Optional(QueryInteger('Maximum items; 0 = the default.')),
  },
  { additionalProperties: false },
);

/** Query of the detail: `target` (optional here) and the scope. */
export const FormulaDetailQuerySchema = Type.Object(
  {
    ...scopeProps,
    target: Type.Optional(
      Type.String({ description: 'Preview target: an agent, pool or bead the workflow would be routed to.' }),
    ),
  },
  { additionalProperties: false },
);

/** `POST /formulas/{name}/preview` body. */
export const FormulaPreviewBodySchema = Type.Object(
  {
    ...scopeProps,
    target: Type.String({ minLength: 1, description: 'Preview target.' }),
    vars: Type.Optional(stringMap({ description: 'Variable values.' })),
  },
  { additionalProperties: false },
);
export type FormulaPreviewBody = Static<typeof FormulaPreviewBodySchema>;

/** `POST /formulas/{name}/cook` body (ours). */
export const FormulaCookBodySchema = Type.Object(
  {
    vars: Type.Optional(stringMap({ description: 'Variable values.' })),
    target: Type.Optional(
      Type.String({ minLength: 1, description: 'Agent or pool the workflow is routed to.' }),
    ),
    title: Type.Optional(Type.String({ minLength: 1, description: 'Root bead title (else the formula’s).' })),
    root_only: Type.Optional(
      Type.Boolean({
        description:
          'Ours: create the root bead alone, none of the steps (bd’s `mol wisp --root-only`: the agent works the steps from the formula).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FormulaCookBody = Static<typeof FormulaCookBodySchema>;

/** `POST /formulas/{name}/cook` answer (ours). */
export const FormulaCookResponseSchema = Type.Object(
  {
    workflow_id: Type.String(),
    root_bead_id: Type.String(),
    formula: Type.String(),
    bead_ids: Type.Array(Type.String(), { description: 'Every bead created, root first.' }),
  },
  { additionalProperties: false },
);
export type FormulaCookResponse = Static<typeof FormulaCookResponseSchema>;

export const WorkflowBeadSchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    status: Type.String(),
    kind: Type.String(),
    metadata: stringMap(),
    assignee: Type.Optional(Type.String()),
    step_ref: Type.Optional(Type.String()),
    logical_bead_id: Type.Optional(Type.String()),
    scope_ref: Type.Optional(Type.String()),
    attempt: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);
export type WorkflowBead = Static<typeof WorkflowBeadSchema>;

/** Progress derived from the beads' states (ours). */
export const WorkflowProgressSchema = Type.Object(
  {
    status: Type.String({ description: 'active | pending | failed | completed | skipped' }),
    total: Type.Integer(),
    open: Type.Integer(),
    in_progress: Type.Integer(),
    closed: Type.Integer(),
    percent: Type.Integer({ description: 'Closed steps out of all steps, 0–100.' }),
  },
  { additionalProperties: false },
);
export type WorkflowProgress = Static<typeof WorkflowProgressSchema>;

const Opaque = Type.Object({}, { additionalProperties: false });

/** `GET /workflow/{workflow_id}`. */
export const WorkflowSnapshotSchema = Type.Object(
  {
    workflow_id: Type.String(),
    root_bead_id: Type.String(),
    root_store_ref: Type.String(),
    resolved_root_store: Type.String(),
    scope_kind: Type.String(),
    scope_ref: Type.String(),
    beads: nullableArray(WorkflowBeadSchema),
    deps: nullableArray(WorkflowDepSchema),
    logical_nodes: nullableArray(Opaque),
    logical_edges: nullableArray(WorkflowDepSchema),
    scope_groups: nullableArray(Opaque),
    partial: Type.Boolean(),
    stores_scanned: nullableArray(Type.String()),
    snapshot_version: Type.Integer({ minimum: 0 }),
    snapshot_event_seq: Type.Optional(Type.Integer({ minimum: 0 })),
    progress: Type.Optional(WorkflowProgressSchema),
  },
  { additionalProperties: false },
);
export type WorkflowSnapshot = Static<typeof WorkflowSnapshotSchema>;

/** `DELETE /workflow/{workflow_id}`. */
export const WorkflowDeleteSchema = Type.Object(
  {
    workflow_id: Type.String(),
    closed: Type.Integer(),
    deleted: Type.Integer(),
    partial: Type.Optional(Type.Boolean()),
    partial_errors: Type.Optional(nullableArray(Type.String())),
  },
  { additionalProperties: false },
);
export type WorkflowDelete = Static<typeof WorkflowDeleteSchema>;

export const WorkflowQuerySchema = Type.Object(scopeProps, { additionalProperties: false });
export const WorkflowDeleteQuerySchema = Type.Object(
  {
    ...scopeProps,
    delete: Type.Optional(Type.Boolean({ description: 'Delete the beads instead of closing.' })),
  },
  { additionalProperties: false },
);
