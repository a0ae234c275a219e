import { Type } from 'typebox';
import { nullableArray } from './beadsCommon.ts';
import { WorkflowBeadSchema } from './formulas.ts';

/**
 * Upstream's `workflow` projection an event may carry: which workflow a bead event moved and where that
 * leaves it. Declared so generated clients get upstream's types; we attach none yet (docs/compatibility.md),
 * so the field is always absent on our wire.
 */

const seq = (description: string) => Type.Integer({ format: 'int64', minimum: 0, description });

export const WorkflowAttemptSummarySchema = Type.Object(
  {
    attempt_count: Type.Integer({ format: 'int64', description: 'Attempts made so far.' }),
    active_attempt: Type.Integer({ format: 'int64', description: 'The attempt now running.' }),
    max_attempts: Type.Optional(Type.Integer({ format: 'int64', description: 'The retry budget.' })),
  },
  { additionalProperties: false },
);

export const WorkflowEventProjectionSchema = Type.Object(
  {
    type: Type.String({ description: 'Projection kind.' }),
    workflow_id: Type.String({ description: 'The workflow.' }),
    root_bead_id: Type.String({ description: "The workflow's root bead." }),
    root_store_ref: Type.String({ description: 'The store the root bead lives in.' }),
    scope_kind: Type.String({ description: 'city or rig.' }),
    scope_ref: Type.String({ description: 'The city or rig name.' }),
    watch_generation: Type.String({ description: 'Changes when a watcher must resynchronise.' }),
    event_seq: seq('The event this projects.'),
    workflow_seq: seq('Position among the workflow’s events.'),
    event_ts: Type.String({ description: 'When the event was recorded.' }),
    event_type: Type.String({ description: 'The event’s type.' }),
    bead: WorkflowBeadSchema,
    changed_fields: nullableArray(Type.String(), { description: 'Bead fields the event changed.' }),
    logical_node_id: Type.String({ description: 'The logical step the bead belongs to.' }),
    attempt_summary: Type.Optional(WorkflowAttemptSummarySchema),
    requires_resync: Type.Optional(Type.Boolean({ description: 'The watcher must read a snapshot again.' })),
  },
  { additionalProperties: false, description: 'The workflow a bead event moved (never attached here yet).' },
);
