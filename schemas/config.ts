import { Type, type Static } from 'typebox';
import { int64, nullableStrings, stringRecord } from './configCommon.ts';
import { named } from './named.ts';

/**
 * The config family's wire shapes (GET /config, /config/defaults, /config/explain, /config/validate) and
 * the packs list: upstream's names, fields and requiredness, our descriptions. Our additions (listed in
 * docs/compatibility.md) are optional fields: `sources` in the explain answer, `problems` in validate.
 */

const closed = (id: string) => ({ $id: id, title: id, additionalProperties: false });

/** Upstream ProviderSpecJSON: one provider's effective spec (its `base` chain flattened). */
const providerSpecFields = {
  command: Type.Optional(Type.String({ description: 'The executable.' })),
  args: Type.Optional(nullableStrings('Its arguments.')),
  acp_command: Type.Optional(Type.String({ description: 'The ACP transport executable.' })),
  acp_args: Type.Optional(Type.Array(Type.String(), { description: 'The ACP transport arguments.' })),
  display_name: Type.Optional(Type.String()),
  env: Type.Optional(stringRecord('Extra environment.')),
  prompt_flag: Type.Optional(
    Type.String({ description: 'The flag that carries the prompt (prompt_mode flag).' }),
  ),
  prompt_mode: Type.Optional(Type.String({ description: 'arg, flag or none.' })),
  ready_delay_ms: Type.Optional(int64('Milliseconds to wait before it counts as ready.')),
};
export const ProviderSpecJSON = named(Type.Object(providerSpecFields, closed('ProviderSpecJSON')));
export type ProviderSpecJSON = Static<typeof ProviderSpecJSON>;

const agentFields = {
  name: Type.String({ description: 'The agent name (unqualified; `dir` is its rig).' }),
  dir: Type.Optional(Type.String({ description: 'Its rig: the qualified name is `dir/name`.' })),
  is_pool: Type.Optional(Type.Boolean({ description: 'It may run several sessions.' })),
  provider: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String()),
  suspended: Type.Boolean(),
};
export const ConfigAgentResponse = named(Type.Object(agentFields, closed('ConfigAgentResponse')));
export type ConfigAgentResponse = Static<typeof ConfigAgentResponse>;

export const ConfigRigResponse = named(
  Type.Object(
    {
      name: Type.String(),
      path: Type.String({ description: 'As written (relative to the city directory, or absolute).' }),
      prefix: Type.Optional(Type.String()),
      suspended: Type.Boolean(),
    },
    closed('ConfigRigResponse'),
  ),
);
export type ConfigRigResponse = Static<typeof ConfigRigResponse>;

export const WorkspaceResponse = named(
  Type.Object(
    {
      name: Type.String({ description: 'The city (workspace) name.' }),
      declared_name: Type.Optional(Type.String({ description: 'The name city.toml declares.' })),
      prefix: Type.Optional(Type.String()),
      declared_prefix: Type.Optional(Type.String()),
      provider: Type.Optional(Type.String({ description: 'The default provider of agents.' })),
      session_template: Type.Optional(Type.String()),
      max_active_sessions: Type.Optional(int64()),
      suspended: Type.Boolean(),
    },
    closed('WorkspaceResponse'),
  ),
);
export type WorkspaceResponse = Static<typeof WorkspaceResponse>;

export const ConfigPatchesResponse = named(
  Type.Object(
    { agent_count: int64(), provider_count: int64(), rig_count: int64() },
    closed('ConfigPatchesResponse'),
  ),
);

export const ConfigResponse = named(
  Type.Object(
    {
      workspace: Type.Ref('WorkspaceResponse'),
      agents: Type.Unsafe<ConfigAgentResponse[] | null>({
        type: ['array', 'null'],
        items: Type.Ref('ConfigAgentResponse'),
      }),
      rigs: Type.Unsafe<ConfigRigResponse[] | null>({
        type: ['array', 'null'],
        items: Type.Ref('ConfigRigResponse'),
      }),
      providers: Type.Optional(Type.Record(Type.String(), Type.Ref('ProviderSpecJSON'))),
      patches: Type.Optional(Type.Ref('ConfigPatchesResponse')),
      effective_api_url: Type.Optional(Type.String()),
    },
    closed('ConfigResponse'),
  ),
);
export interface ConfigResponse {
  workspace: WorkspaceResponse;
  agents: ConfigAgentResponse[] | null;
  rigs: ConfigRigResponse[] | null;
  providers?: Record<string, ProviderSpecJSON>;
  patches?: { agent_count: number; provider_count: number; rig_count: number };
  effective_api_url?: string;
}

export const AnnotatedAgentResponse = named(
  Type.Object(
    { ...agentFields, origin: Type.String({ description: '`inline` (in city.toml) or `pack-derived`.' }) },
    closed('AnnotatedAgentResponse'),
  ),
);
export type AnnotatedAgentResponse = Static<typeof AnnotatedAgentResponse>;

export const AnnotatedProviderResponse = named(
  Type.Object(
    { ...providerSpecFields, origin: Type.String({ description: '`builtin`, `city` or `builtin+city`.' }) },
    closed('AnnotatedProviderResponse'),
  ),
);
export type AnnotatedProviderResponse = Static<typeof AnnotatedProviderResponse>;

export const ConfigExplainPatches = named(
  Type.Object({ agents: int64(), providers: int64(), rigs: int64() }, closed('ConfigExplainPatches')),
);

/** Ours: where one value of the effective config comes from. */
export const ConfigValueSource = named(
  Type.Object(
    {
      path: Type.String({
        description:
          'The value: `workspace.<key>`, `agents.<qualified name>.<key>`, `providers.<name>.<key>`, ' +
          '`rigs.<name>.<key>` or `services.<name>.<key>`.',
      }),
      origin: Type.Union(
        [Type.Literal('default'), Type.Literal('pack'), Type.Literal('city'), Type.Literal('patch')],
        { description: 'The layer: builtin default, a pack, city.toml, or a patch of city.toml.' },
      ),
      file: Type.Optional(Type.String({ description: 'The file, relative to the city directory.' })),
      pack: Type.Optional(Type.String({ description: 'The pack, for origin `pack`.' })),
    },
    closed('ConfigValueSource'),
  ),
);
export type ConfigValueSource = Static<typeof ConfigValueSource>;

export const ConfigExplainResponse = named(
  Type.Object(
    {
      agents: Type.Unsafe<AnnotatedAgentResponse[] | null>({
        type: ['array', 'null'],
        items: Type.Ref('AnnotatedAgentResponse'),
      }),
      providers: Type.Record(Type.String(), Type.Ref('AnnotatedProviderResponse')),
      patches: Type.Ref('ConfigExplainPatches'),
      sources: Type.Optional(
        Type.Array(Type.Ref('ConfigValueSource'), {
          description: 'Ours: the layer every value of the effective config comes from, sorted by path.',
        }),
      ),
    },
    closed('ConfigExplainResponse'),
  ),
);
export interface ConfigExplainResponse {
  agents: AnnotatedAgentResponse[] | null;
  providers: Record<string, AnnotatedProviderResponse>;
  patches: { agents: number; providers: number; rigs: number };
  sources?: ConfigValueSource[];
}

/** Ours: one problem of the configuration, naming file and field. */
export const ConfigProblemResponse = named(
  Type.Object(
    {
      severity: Type.Union([Type.Literal('error'), Type.Literal('warning')]),
      file: Type.String({ description: 'Relative to the city directory.' }),
      field: Type.String({
        description: 'The TOML path (`agent[2].provider`) or `line N` of a syntax error.',
      }),
      message: Type.String(),
    },
    closed('ConfigProblemResponse'),
  ),
);
export type ConfigProblemResponse = Static<typeof ConfigProblemResponse>;

export const ConfigValidateOutputBody = named(
  Type.Object(
    {
      valid: Type.Boolean({ description: 'The configuration has no error.' }),
      errors: nullableStrings('Each error as `<file>: <field>: <message>`.'),
      warnings: nullableStrings('Each warning as `<file>: <field>: <message>`.'),
      problems: Type.Optional(
        Type.Array(Type.Ref('ConfigProblemResponse'), {
          description: 'Ours: the same problems, structured.',
        }),
      ),
    },
    closed('ConfigValidateOutputBody'),
  ),
);
export interface ConfigValidateOutputBody {
  valid: boolean;
  errors: string[] | null;
  warnings: string[] | null;
  problems?: ConfigProblemResponse[];
}

export const PackResponse = named(
  Type.Object(
    {
      name: Type.String(),
      source: Type.Optional(Type.String({ description: 'Where `[packs.<name>]` is fetched from.' })),
      ref: Type.Optional(Type.String({ description: 'The git ref it is checked out at.' })),
      path: Type.Optional(Type.String({ description: 'A subdirectory of the source, or an include path.' })),
    },
    closed('PackResponse'),
  ),
);
export type PackResponse = Static<typeof PackResponse>;

export const PackListBody = named(
  Type.Object(
    {
      packs: Type.Unsafe<PackResponse[] | null>({ type: ['array', 'null'], items: Type.Ref('PackResponse') }),
    },
    closed('PackListBody'),
  ),
);

/** Every named schema of the config family, for `registerSchemas`. */
export const CONFIG_SCHEMAS = [
  ProviderSpecJSON,
  ConfigAgentResponse,
  ConfigRigResponse,
  WorkspaceResponse,
  ConfigPatchesResponse,
  ConfigResponse,
  AnnotatedAgentResponse,
  AnnotatedProviderResponse,
  ConfigExplainPatches,
  ConfigValueSource,
  ConfigExplainResponse,
  ConfigProblemResponse,
  ConfigValidateOutputBody,
  PackResponse,
  PackListBody,
];
