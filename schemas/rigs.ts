import { Type, type Static } from 'typebox';
import { int64, nullableStrings } from './configCommon.ts';
import { named } from './named.ts';

/** The rigs family's wire shapes (upstream's names, fields and requiredness; our descriptions). */

const closed = (id: string) => ({ $id: id, title: id, additionalProperties: false });

export const RIG_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';

export const RigCreateInputBody = named(
  Type.Object(
    {
      name: Type.String({ minLength: 1, pattern: RIG_NAME_PATTERN, description: 'Rig name.' }),
      path: Type.String({
        minLength: 1,
        description: 'Its directory (relative to the city directory, or absolute).',
      }),
      prefix: Type.Optional(Type.String({ description: 'Bead id / session name prefix.' })),
      default_branch: Type.Optional(Type.String({ description: 'Its mainline branch (main, master, …).' })),
    },
    closed('RigCreateInputBody'),
  ),
);
export type RigCreateInputBody = Static<typeof RigCreateInputBody>;

export const RigUpdateInputBody = named(
  Type.Object(
    {
      path: Type.Optional(Type.String({ minLength: 1 })),
      prefix: Type.Optional(Type.String()),
      default_branch: Type.Optional(Type.String()),
      suspended: Type.Optional(Type.Boolean({ description: 'A suspended rig runs none of its agents.' })),
    },
    closed('RigUpdateInputBody'),
  ),
);
export type RigUpdateInputBody = Static<typeof RigUpdateInputBody>;

export const RigCreatedOutputBody = named(
  Type.Object(
    { status: Type.String({ description: '`created`.' }), rig: Type.String() },
    closed('RigCreatedOutputBody'),
  ),
);

export const GitStatus = named(
  Type.Object(
    {
      branch: Type.String(),
      clean: Type.Boolean(),
      changed_files: int64(),
      ahead: int64(),
      behind: int64(),
    },
    closed('GitStatus'),
  ),
);
export type GitStatus = Static<typeof GitStatus>;

export const RigResponse = named(
  Type.Object(
    {
      name: Type.String(),
      path: Type.String(),
      prefix: Type.Optional(Type.String()),
      default_branch: Type.Optional(Type.String()),
      suspended: Type.Boolean(),
      agent_count: int64('Agents whose `dir` is this rig.'),
      running_count: int64('Of them, those with a running session.'),
      git: Type.Optional(Type.Ref('GitStatus')),
      last_activity: Type.Optional(Type.String({ format: 'date-time' })),
    },
    closed('RigResponse'),
  ),
);
export type RigResponse = Omit<Static<typeof RigResponse>, 'git'> & { git?: GitStatus };

export const ListBodyRigResponse = named(
  Type.Object(
    {
      items: Type.Unsafe<RigResponse[] | null>({ type: ['array', 'null'], items: Type.Ref('RigResponse') }),
      total: int64(),
      next_cursor: Type.Optional(Type.String()),
      partial: Type.Optional(Type.Boolean()),
      partial_errors: Type.Optional(nullableStrings('Rigs whose git status could not be read.')),
    },
    closed('ListBodyRigResponse'),
  ),
);
export interface ListBodyRigResponse {
  items: RigResponse[] | null;
  total: number;
  next_cursor?: string;
  partial?: boolean;
  partial_errors?: string[] | null;
}

export const RIG_ACTIONS = ['suspend', 'resume', 'restart'] as const;
export type RigAction = (typeof RIG_ACTIONS)[number];

export const RigActionBody = named(
  Type.Object(
    {
      action: Type.String(),
      rig: Type.String(),
      status: Type.String({ description: 'ok, partial or failed.' }),
      killed: Type.Optional(nullableStrings('Sessions stopped (restart).')),
      failed: Type.Optional(nullableStrings('Sessions that could not be stopped (restart).')),
    },
    closed('RigActionBody'),
  ),
);
export interface RigActionBody {
  action: string;
  rig: string;
  status: string;
  killed?: string[] | null;
  failed?: string[] | null;
}

export const RIG_SCHEMAS = [
  RigCreateInputBody,
  RigUpdateInputBody,
  RigCreatedOutputBody,
  GitStatus,
  RigResponse,
  ListBodyRigResponse,
  RigActionBody,
];
