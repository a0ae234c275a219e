import { Type, type Static } from 'typebox';
import { nullableArray, stringMap } from './beadsCommon.ts';

/** `POST /sling` body: upstream's SlingInputBody, field for field. */
export const SlingInputBodySchema = Type.Object(
  {
    target: Type.String({ minLength: 1, description: 'Target agent or pool.' }),
    bead: Type.Optional(Type.String({ minLength: 1, description: 'Bead ID to sling.' })),
    formula: Type.Optional(Type.String({ minLength: 1, description: 'Formula name for workflow launch.' })),
    attached_bead_id: Type.Optional(
      Type.String({ minLength: 1, description: 'Bead ID to attach a formula to.' }),
    ),
    title: Type.Optional(Type.String({ description: 'Workflow title.' })),
    vars: Type.Optional(stringMap({ description: 'Formula variables.' })),
    scope_kind: Type.Optional(Type.String({ description: 'Scope kind (city or rig).' })),
    scope_ref: Type.Optional(Type.String({ description: 'Scope reference.' })),
    rig: Type.Optional(Type.String({ description: 'Rig name.' })),
    force: Type.Optional(
      Type.Boolean({
        description:
          'Bypass the missing-bead check of a direct route, and launch a workflow on a bead that already runs one.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SlingInputBody = Static<typeof SlingInputBodySchema>;

/** `POST /sling` answer: upstream's SlingResponse. */
export const SlingResponseSchema = Type.Object(
  {
    status: Type.String({ description: '`slung`.' }),
    target: Type.String({ description: 'The resolved (qualified) target.' }),
    mode: Type.Optional(Type.String({ description: '`direct`, `standalone` or `attached`.' })),
    bead: Type.Optional(Type.String()),
    formula: Type.Optional(Type.String()),
    workflow_id: Type.Optional(Type.String()),
    root_bead_id: Type.Optional(Type.String()),
    attached_bead_id: Type.Optional(Type.String()),
    warnings: Type.Optional(nullableArray(Type.String())),
  },
  { additionalProperties: false },
);
export type SlingResponse = Static<typeof SlingResponseSchema>;
