import { stringOf } from './stringOf.ts';
import { Type, type TSchema } from 'typebox';
import { int64, nullable, nullableStrings, stringRecord } from './configCommon.ts';
import { named } from './named.ts';

/**
 * The patches family's wire shapes. Patch records are upstream's Go structs: PascalCase fields, every
 * override `null` when the patch does not set it. The set bodies are snake_case, as the TOML keys.
 */

const closed = (id: string) => ({ $id: id, title: id, additionalProperties: false });

type Kind = 's' | 'a' | 'b' | 'i';
const field = (k: Kind): TSchema =>
  k === 's'
    ? nullable(Type.String())
    : k === 'a'
      ? nullableStrings()
      : k === 'b'
        ? nullable(Type.Boolean())
        : nullable(int64());

/** A PascalCase record whose fields are all required (nullable ones `null` when unset). */
function record(id: string, fixed: Record<string, TSchema>, overrides: Record<string, Kind>) {
  const props: Record<string, TSchema> = { ...fixed };
  for (const [k, kind] of Object.entries(overrides)) props[k] = field(kind);
  return named(Type.Object(props, closed(id)));
}

/** AgentPatch's override fields and their kinds (upstream's list). */
export const AGENT_PATCH_FIELDS: Record<string, Kind> = {
  WorkDir: 's',
  TmuxAlias: 's',
  Scope: 's',
  Suspended: 'b',
  EnvRemove: 'a',
  PreStart: 'a',
  PromptTemplate: 's',
  Session: 's',
  Provider: 's',
  Args: 'a',
  StartCommand: 's',
  Lifecycle: 's',
  Nudge: 's',
  IdleTimeout: 's',
  MaxSessionAge: 's',
  MaxSessionAgeJitter: 's',
  SleepAfterIdle: 's',
  InstallAgentHooks: 'a',
  Skills: 'a',
  MCP: 'a',
  SkillsAppend: 'a',
  MCPAppend: 'a',
  HooksInstalled: 'b',
  InjectAssignedSkills: 'b',
  SessionSetup: 'a',
  SessionSetupScript: 's',
  SessionLive: 'a',
  OverlayDir: 's',
  DefaultSlingFormula: 's',
  InjectFragments: 'a',
  AppendFragments: 'a',
  Attach: 'b',
  DependsOn: 'a',
  ResumeCommand: 's',
  WakeMode: 's',
  MouseMode: 's',
  PreStartAppend: 'a',
  SessionSetupAppend: 'a',
  SessionLiveAppend: 'a',
  InstallAgentHooksAppend: 'a',
  InjectFragmentsAppend: 'a',
  MaxActiveSessions: 'i',
  MinActiveSessions: 'i',
  ScaleCheck: 's',
};
export const POOL_FIELDS: Record<string, Kind> = {
  Check: 's',
  DrainTimeout: 's',
  Max: 'i',
  Min: 'i',
  OnBoot: 's',
  OnDeath: 's',
};
export const PROVIDER_PATCH_FIELDS: Record<string, Kind> = {
  ACPArgs: 'a',
  ACPCommand: 's',
  AcceptStartupDialogs: 'b',
  Args: 'a',
  ArgsAppend: 'a',
  Base: 's',
  Command: 's',
  EnvRemove: 'a',
  OptionsSchemaMerge: 's',
  PromptFlag: 's',
  PromptMode: 's',
  ReadyDelayMs: 'i',
};
export const RIG_PATCH_FIELDS: Record<string, Kind> = {
  DefaultBranch: 's',
  Path: 's',
  Prefix: 's',
  Suspended: 'b',
  SuspendedOnStart: 'b',
};

export const PoolOverride = record('PoolOverride', {}, POOL_FIELDS);
export const AgentPatch = record(
  'AgentPatch',
  {
    Name: Type.String(),
    Dir: Type.String({ description: 'The rig of a rig agent; empty for a city agent.' }),
    Env: stringRecord(),
    OptionDefaults: stringRecord(),
    Pool: Type.Ref('PoolOverride'),
  },
  AGENT_PATCH_FIELDS,
);
export const ProviderPatch = record(
  'ProviderPatch',
  {
    Name: Type.String(),
    Env: stringRecord(),
    Replace: Type.Boolean({ description: 'Replaces the whole provider.' }),
  },
  PROVIDER_PATCH_FIELDS,
);
export const RigPatch = record(
  'RigPatch',
  { Name: Type.String(), FormulaVars: stringRecord() },
  RIG_PATCH_FIELDS,
);

/** A patch record as the routes answer it (its fields are checked by the schemas above). */
export type PatchRecord = Record<string, unknown>;

const listBody = (id: string, item: string) =>
  named(
    Type.Object(
      {
        items: Type.Unsafe<PatchRecord[] | null>({ type: ['array', 'null'], items: Type.Ref(item) }),
        total: int64(),
        next_cursor: Type.Optional(Type.String()),
        partial: Type.Optional(Type.Boolean()),
        partial_errors: Type.Optional(nullableStrings()),
      },
      closed(id),
    ),
  );
export const ListBodyAgentPatch = listBody('ListBodyAgentPatch', 'AgentPatch');
export const ListBodyProviderPatch = listBody('ListBodyProviderPatch', 'ProviderPatch');
export const ListBodyRigPatch = listBody('ListBodyRigPatch', 'RigPatch');

const NAME = { minLength: 1, description: 'The target’s name (required).' };

export const AgentPatchSetInputBody = named(
  Type.Object(
    {
      name: Type.Optional(Type.String(NAME)),
      dir: Type.Optional(Type.String({ description: 'The target’s rig (empty: a city agent).' })),
      env: Type.Optional(stringRecord()),
      scope: Type.Optional(Type.String()),
      suspended: Type.Optional(Type.Boolean()),
      tmux_alias: Type.Optional(Type.String()),
      work_dir: Type.Optional(Type.String()),
    },
    closed('AgentPatchSetInputBody'),
  ),
);
export interface AgentPatchSetInputBody {
  name?: string;
  dir?: string;
  env?: Record<string, string>;
  scope?: string;
  suspended?: boolean;
  tmux_alias?: string;
  work_dir?: string;
}

export const ProviderPatchSetInputBody = named(
  Type.Object(
    {
      name: Type.Optional(Type.String(NAME)),
      command: Type.Optional(Type.String()),
      args: Type.Optional(nullableStrings()),
      acp_command: Type.Optional(Type.String()),
      acp_args: Type.Optional(nullableStrings()),
      accept_startup_dialogs: Type.Optional(Type.Boolean()),
      env: Type.Optional(stringRecord()),
      prompt_flag: Type.Optional(Type.String()),
      prompt_mode: Type.Optional(stringOf(['arg', 'flag', 'none'], 'How the prompt reaches the CLI.')),
      ready_delay_ms: Type.Optional(int64()),
    },
    closed('ProviderPatchSetInputBody'),
  ),
);
export interface ProviderPatchSetInputBody {
  name?: string;
  command?: string;
  args?: string[] | null;
  acp_command?: string;
  acp_args?: string[] | null;
  accept_startup_dialogs?: boolean;
  env?: Record<string, string>;
  prompt_flag?: string;
  prompt_mode?: 'arg' | 'flag' | 'none';
  ready_delay_ms?: number;
}

export const RigPatchSetInputBody = named(
  Type.Object(
    {
      name: Type.Optional(Type.String(NAME)),
      default_branch: Type.Optional(Type.String()),
      path: Type.Optional(Type.String()),
      prefix: Type.Optional(Type.String()),
      suspended: Type.Optional(Type.Boolean()),
    },
    closed('RigPatchSetInputBody'),
  ),
);
export interface RigPatchSetInputBody {
  name?: string;
  default_branch?: string;
  path?: string;
  prefix?: string;
  suspended?: boolean;
}

const patchNames = {
  agent_patch: Type.Optional(Type.String({ description: 'The agent patch (`dir/name`).' })),
  provider_patch: Type.Optional(Type.String()),
  rig_patch: Type.Optional(Type.String()),
};
export const PatchOKResponseBody = named(
  Type.Object(
    { status: Type.String({ description: '`ok`.' }), ...patchNames },
    closed('PatchOKResponseBody'),
  ),
);
export const PatchDeletedResponseBody = named(
  Type.Object(
    { status: Type.String({ description: '`deleted`.' }), ...patchNames },
    closed('PatchDeletedResponseBody'),
  ),
);
export interface PatchAnswer {
  status: string;
  agent_patch?: string;
  provider_patch?: string;
  rig_patch?: string;
}

export const PATCH_SCHEMAS = [
  PoolOverride,
  AgentPatch,
  ProviderPatch,
  RigPatch,
  ListBodyAgentPatch,
  ListBodyProviderPatch,
  ListBodyRigPatch,
  AgentPatchSetInputBody,
  ProviderPatchSetInputBody,
  RigPatchSetInputBody,
  PatchOKResponseBody,
  PatchDeletedResponseBody,
];
