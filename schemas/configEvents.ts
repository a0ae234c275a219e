import { Type, type Static } from 'typebox';
import { named } from './named.ts';

/**
 * `config.changed` (ours; docs/compatibility.md): the city's `city.toml` changed, through the API's one
 * config writer (providers, rigs, patches) or by hand (picked up from the file). Upstream records no
 * event for a config edit; we record every one, so a subscriber learns of it and a write interrupted by a
 * crash is settled from the log (`write_id`).
 */
export const ConfigChangedPayload = named(
  Type.Object(
    {
      write_id: Type.String({ minLength: 1, description: 'Names the write (settles a crash mid-write).' }),
      sha256: Type.String({ description: "The new city.toml's sha256 (hex)." }),
      source: Type.Union([Type.Literal('api'), Type.Literal('file')], {
        description: '`api`: written by the config writer; `file`: an edit made to the file by hand.',
      }),
      kind: Type.Union(
        [
          Type.Literal('provider'),
          Type.Literal('rig'),
          Type.Literal('agent_patch'),
          Type.Literal('provider_patch'),
          Type.Literal('rig_patch'),
          Type.Literal('file'),
        ],
        { description: 'What changed.' },
      ),
      op: Type.Union(
        [Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted'), Type.Literal('edited')],
        { description: '`edited`: a hand edit of the file.' },
      ),
      target: Type.Optional(Type.String({ description: 'The provider, rig or patch (`dir/name`) changed.' })),
      fields: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), { description: 'The fields a write set, as TOML keys.' }),
      ),
      valid: Type.Boolean({ description: 'The new config has no error (a hand edit may have some).' }),
      errors: Type.Optional(
        Type.Array(Type.String(), { description: 'Its errors, each naming file and field (hand edits).' }),
      ),
    },
    { $id: 'ConfigChangedPayload', additionalProperties: false },
  ),
);
export type ConfigChangedPayload = Static<typeof ConfigChangedPayload>;

/** Our config types and their payloads (spread into `OUR_EVENT_PAYLOADS`). */
export const CONFIG_PAYLOADS = {
  'config.changed': ConfigChangedPayload,
} as const;
