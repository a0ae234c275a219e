import { Type, type Static } from 'typebox';
import { blockingQueryProperties, nullableArray, pagingQueryProperties, stringMap } from './beadsCommon.ts';

/** A typed dependency edge: `issue_id` depends on (is blocked by) `depends_on_id`. */
export const DepSchema = Type.Object(
  {
    issue_id: Type.String({ description: 'The dependent bead.' }),
    depends_on_id: Type.String({ description: 'The bead depended upon.' }),
    type: Type.String({ description: 'Edge kind: blocks, waits-for, conditional-blocks, parent-child, …' }),
  },
  { additionalProperties: false },
);
export type Dep = Static<typeof DepSchema>;

/** A bead: the universal work item (tasks, messages, convoys are all beads). Upstream's `Bead`. */
export const BeadSchema = Type.Object(
  {
    id: Type.String({ description: 'Bead ID: `<prefix>-<n>`.' }),
    title: Type.String(),
    status: Type.String({
      description: 'open | in_progress | blocked | deferred | closed | pinned | hooked',
    }),
    issue_type: Type.String({ description: 'Bead type (request bodies call it `type`); default task.' }),
    // Go's zero time, what upstream's typed decode gives an event's bead that lacks it (http/events/wire.ts).
    created_at: Type.String({ format: 'date-time', default: '0001-01-01T00:00:00Z' }),
    updated_at: Type.Optional(Type.String({ format: 'date-time' })),
    description: Type.Optional(Type.String()),
    assignee: Type.Optional(Type.String()),
    priority: Type.Optional(Type.Integer()),
    labels: Type.Optional(nullableArray(Type.String())),
    metadata: Type.Optional(stringMap()),
    parent: Type.Optional(Type.String()),
    defer_until: Type.Optional(Type.String({ format: 'date-time' })),
    dependencies: Type.Optional(nullableArray(DepSchema)),
    from: Type.Optional(Type.String({ description: 'Sender identity (message beads).' })),
    ephemeral: Type.Optional(Type.Boolean()),
    is_blocked: Type.Optional(
      Type.Boolean({ description: 'Computed: an open blocking dependency points at a bead not closed.' }),
    ),
    needs: Type.Optional(nullableArray(Type.String())),
    no_history: Type.Optional(Type.Boolean()),
    ref: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type Bead = Static<typeof BeadSchema>;

/** `POST /beads` body (upstream BeadCreateInputBody). */
export const BeadCreateBodySchema = Type.Object(
  {
    title: Type.String({ minLength: 1, description: 'Bead title.' }),
    type: Type.Optional(Type.String({ description: 'Bead type.' })),
    description: Type.Optional(Type.String({ description: 'Bead description.' })),
    assignee: Type.Optional(Type.String({ description: 'Assigned agent.' })),
    priority: Type.Optional(Type.Integer({ description: 'Bead priority.' })),
    labels: Type.Optional(nullableArray(Type.String(), { description: 'Bead labels.' })),
    metadata: Type.Optional(stringMap({ description: 'Metadata key-value pairs to set at create time.' })),
    parent: Type.Optional(Type.String({ description: 'Parent bead ID.' })),
    rig: Type.Optional(Type.String({ description: 'Rig name.' })),
    defer_until: Type.Optional(
      Type.String({ format: 'date-time', description: 'Hide the bead from ready views until this time.' }),
    ),
  },
  { additionalProperties: false },
);
export type BeadCreateBody = Static<typeof BeadCreateBodySchema>;

/** `PATCH /bead/{id}` and `POST /bead/{id}/update` body (upstream BeadUpdateBody). */
export const BeadUpdateBodySchema = Type.Object(
  {
    title: Type.Optional(Type.String({ description: 'Bead title.' })),
    description: Type.Optional(Type.String({ description: 'Bead description.' })),
    status: Type.Optional(Type.String({ description: 'Bead status.' })),
    type: Type.Optional(Type.String({ description: 'Bead type.' })),
    priority: Type.Optional(Type.Integer({ description: 'Bead priority.' })),
    assignee: Type.Optional(Type.String({ description: 'Assigned agent.' })),
    labels: Type.Optional(nullableArray(Type.String(), { description: 'Labels to add.' })),
    remove_labels: Type.Optional(nullableArray(Type.String(), { description: 'Labels to remove.' })),
    metadata: Type.Optional(stringMap({ description: 'Metadata key-value pairs to set.' })),
    parent: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        description: 'Parent bead ID. Use null or an empty string to clear.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type BeadUpdateBody = Static<typeof BeadUpdateBodySchema>;

/** `POST /bead/{id}/assign` body. */
export const BeadAssignBodySchema = Type.Object(
  { assignee: Type.Optional(Type.String({ description: 'Assignee name.' })) },
  { additionalProperties: false },
);
export type BeadAssignBody = Static<typeof BeadAssignBodySchema>;

/** `POST /bead/{id}/assign` answer: `{status: "assigned", assignee}`. */
export const BeadAssignResponseSchema = stringMap();

/** `POST /bead/{id}/dependencies` body (our addition: upstream has no route that adds an edge). */
export const BeadDependencyBodySchema = Type.Object(
  {
    depends_on_id: Type.String({ minLength: 1, description: 'The bead this one depends on.' }),
    type: Type.Optional(
      Type.String({
        pattern: '^[a-z][a-z0-9-]{0,63}$',
        description: 'Edge kind (default blocks): blocks, waits-for, conditional-blocks, parent-child, …',
      }),
    ),
  },
  { additionalProperties: false },
);
export type BeadDependencyBody = Static<typeof BeadDependencyBodySchema>;

/** `GET /beads` query. */
export const BeadListQuerySchema = Type.Object(
  {
    ...blockingQueryProperties,
    ...pagingQueryProperties,
    status: Type.Optional(Type.String({ description: 'Filter by bead status.' })),
    type: Type.Optional(Type.String({ description: 'Filter by bead type.' })),
    label: Type.Optional(Type.String({ description: 'Filter by label.' })),
    assignee: Type.Optional(Type.String({ description: 'Filter by assignee.' })),
    rig: Type.Optional(Type.String({ description: 'Filter by rig.' })),
    all: Type.Optional(Type.Boolean({ description: 'Include closed beads.' })),
  },
  { additionalProperties: false },
);
export type BeadListQuery = Static<typeof BeadListQuerySchema>;

/** List envelope of beads (upstream ListBodyBead). */
export const ListBodyBeadSchema = Type.Object(
  {
    items: nullableArray(BeadSchema, { description: 'The list of items.' }),
    total: Type.Integer({ description: 'Total number of items matching the query.' }),
    next_cursor: Type.Optional(Type.String({ description: 'Cursor for the next page of results.' })),
    partial: Type.Optional(Type.Boolean()),
    partial_errors: Type.Optional(nullableArray(Type.String())),
  },
  { additionalProperties: false },
);
export type ListBodyBead = Static<typeof ListBodyBeadSchema>;

/** `GET /bead/{id}/deps`: the bead's children. */
export const BeadDepsResponseSchema = Type.Object(
  { children: nullableArray(BeadSchema) },
  { additionalProperties: false },
);

/** One edge of a workflow graph: `from` must finish before `to`. */
export const WorkflowDepSchema = Type.Object(
  { from: Type.String(), to: Type.String(), kind: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
export type WorkflowDep = Static<typeof WorkflowDepSchema>;

/** `GET /beads/graph/{rootID}`. */
export const BeadGraphResponseSchema = Type.Object(
  { root: BeadSchema, beads: nullableArray(BeadSchema), deps: nullableArray(WorkflowDepSchema) },
  { additionalProperties: false },
);
export type BeadGraphResponse = Static<typeof BeadGraphResponseSchema>;

/** Payload of `bead.created|updated|closed|deleted`: the full bead after the change. */
export interface BeadEventPayload {
  bead: Bead;
}
