import { stringOf } from './stringOf.ts';
import { Type, type Static } from 'typebox';
import { int64, nullableStrings, stringRecord } from './configCommon.ts';
import { named } from './named.ts';

/** The providers family's wire shapes (upstream's names, fields and requiredness; our descriptions). */

const closed = (id: string) => ({ $id: id, title: id, additionalProperties: false });

/** The fields a create and an update may set, as `[providers.<name>]` keys. */
const editable = {
  command: Type.Optional(
    Type.String({ minLength: 1, description: 'The executable (required unless `base`).' }),
  ),
  args: Type.Optional(nullableStrings('Its arguments.')),
  args_append: Type.Optional(nullableStrings('Arguments after the inherited ones.')),
  base: Type.Optional(Type.String({ minLength: 1, description: 'The provider it inherits from.' })),
  acp_command: Type.Optional(Type.String({ description: 'The ACP transport executable.' })),
  acp_args: Type.Optional(nullableStrings('The ACP transport arguments.')),
  display_name: Type.Optional(Type.String()),
  env: Type.Optional(stringRecord('Extra environment.')),
  options_schema_merge: Type.Optional(
    Type.String({ description: 'How options schemas merge along `base`.' }),
  ),
  prompt_flag: Type.Optional(Type.String()),
  prompt_mode: Type.Optional(stringOf(['arg', 'flag', 'none'], 'How the prompt reaches the CLI.')),
  ready_delay_ms: Type.Optional(int64('Milliseconds to wait before it counts as ready.')),
};

export const ProviderCreateInputBody = named(
  Type.Object(
    {
      name: Type.String({
        minLength: 1,
        pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$',
        description: 'Provider name.',
      }),
      ...editable,
    },
    closed('ProviderCreateInputBody'),
  ),
);
export type ProviderCreateInputBody = Static<typeof ProviderCreateInputBody>;

export const ProviderUpdateInputBody = named(Type.Object(editable, closed('ProviderUpdateInputBody')));
export type ProviderUpdateInputBody = Static<typeof ProviderUpdateInputBody>;

export const ProviderCreatedOutputBody = named(
  Type.Object(
    { status: Type.String({ description: '`created`.' }), provider: Type.String() },
    closed('ProviderCreatedOutputBody'),
  ),
);

export const ProviderResponse = named(
  Type.Object(
    {
      name: Type.String(),
      builtin: Type.Boolean({ description: 'A builtin preset has this name.' }),
      city_level: Type.Boolean({
        description: 'The city (city.toml, a pack or a patch) defines or overrides it.',
      }),
      command: Type.Optional(Type.String()),
      args: Type.Optional(nullableStrings()),
      acp_command: Type.Optional(Type.String()),
      acp_args: Type.Optional(Type.Array(Type.String())),
      display_name: Type.Optional(Type.String()),
      env: Type.Optional(stringRecord()),
      prompt_flag: Type.Optional(Type.String()),
      prompt_mode: Type.Optional(Type.String()),
      ready_delay_ms: Type.Optional(int64()),
    },
    closed('ProviderResponse'),
  ),
);
export type ProviderResponse = Static<typeof ProviderResponse>;

export const ListBodyProviderResponse = named(
  Type.Object(
    {
      items: Type.Unsafe<ProviderResponse[] | null>({
        type: ['array', 'null'],
        items: Type.Ref('ProviderResponse'),
      }),
      total: int64('How many providers.'),
      next_cursor: Type.Optional(Type.String({ description: 'Never set: the list is not paged.' })),
      partial: Type.Optional(Type.Boolean()),
      partial_errors: Type.Optional(nullableStrings()),
    },
    closed('ListBodyProviderResponse'),
  ),
);
export interface ListBodyProviderResponse {
  items: ProviderResponse[] | null;
  total: number;
  next_cursor?: string;
  partial?: boolean;
  partial_errors?: string[] | null;
}

export const OptionChoiceDTO = named(
  Type.Object({ value: Type.String(), label: Type.String() }, closed('OptionChoiceDTO')),
);
export const ProviderOptionDTO = named(
  Type.Object(
    {
      key: Type.String(),
      label: Type.String(),
      type: Type.String(),
      default: Type.String(),
      choices: Type.Unsafe<Array<{ value: string; label: string }> | null>({
        type: ['array', 'null'],
        items: Type.Ref('OptionChoiceDTO'),
      }),
    },
    closed('ProviderOptionDTO'),
  ),
);

export const ProviderPublicResponse = named(
  Type.Object(
    {
      name: Type.String(),
      builtin: Type.Boolean(),
      city_level: Type.Boolean(),
      display_name: Type.Optional(Type.String()),
      effective_defaults: Type.Optional(stringRecord('Option defaults in effect.')),
      options_schema: Type.Optional(
        Type.Unsafe<unknown[] | null>({ type: ['array', 'null'], items: Type.Ref('ProviderOptionDTO') }),
      ),
    },
    closed('ProviderPublicResponse'),
  ),
);
export type ProviderPublicResponse = Static<typeof ProviderPublicResponse>;

export const ProviderPublicListBody = named(
  Type.Object(
    {
      items: Type.Unsafe<ProviderPublicResponse[] | null>({
        type: ['array', 'null'],
        items: Type.Ref('ProviderPublicResponse'),
      }),
      total: int64(),
      next_cursor: Type.Optional(Type.String()),
    },
    closed('ProviderPublicListBody'),
  ),
);
export interface ProviderPublicListBody {
  items: ProviderPublicResponse[] | null;
  total: number;
  next_cursor?: string;
}

export const PROVIDER_SCHEMAS = [
  ProviderCreateInputBody,
  ProviderUpdateInputBody,
  ProviderCreatedOutputBody,
  ProviderResponse,
  ListBodyProviderResponse,
  OptionChoiceDTO,
  ProviderOptionDTO,
  ProviderPublicResponse,
  ProviderPublicListBody,
];
