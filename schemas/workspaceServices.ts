import { Type, type Static } from 'typebox';
import { CityNameParam, nullableArray } from './beadsCommon.ts';
import { named } from './named.ts';

/**
 * Wire shapes of the services family (a city's workspace services: `[[service]]` of its city.toml, run by
 * the supervisor as child processes and reached through `/v0/city/{cityName}/svc/<name>/…`). Names, fields
 * and requiredness are upstream's; the descriptions are ours.
 */

/** Upstream `Status`: the state of one workspace service. */
export const ServiceStatus = named(
  Type.Object(
    {
      service_name: Type.String({ description: 'Service name (its `[[service]]` name).' }),
      kind: Type.Optional(Type.String({ description: '`proxy_process` or `workflow`.' })),
      workflow_contract: Type.Optional(Type.String({ description: 'The contract of a workflow service.' })),
      mount_path: Type.String({ description: 'Where the service is reached: `/svc/<name>`.' }),
      publish_mode: Type.String({ description: '`private` (default) or `direct`.' }),
      visibility: Type.Optional(Type.String({ description: '`private`, `public` or `tenant`.' })),
      hostname: Type.Optional(Type.String({ description: 'Publication host label.' })),
      state_root: Type.String({ description: 'The service state directory, relative to the city.' }),
      url: Type.Optional(Type.String({ description: 'Published URL (none: not published).' })),
      state: Type.Optional(
        Type.String({ description: 'Overall state: starting, ready, degraded, stopped.' }),
      ),
      local_state: Type.String({
        description: 'State of the local process: starting, ready, degraded, stopped or config_error.',
      }),
      publication_state: Type.String({ description: '`private` unless published.' }),
      reason: Type.Optional(Type.String({ description: 'Why the service is in its state, when not ready.' })),
      allow_websockets: Type.Optional(Type.Boolean({ description: 'WebSockets allowed when published.' })),
      updated_at: Type.String({ format: 'date-time', description: 'When the state last changed.' }),
    },
    { $id: 'Status', title: 'Status', additionalProperties: false },
  ),
);
export type ServiceStatus = Static<typeof ServiceStatus>;

/** Upstream `ListBodyStatus`: every workspace service of the city. */
export const ListBodyStatus = named(
  Type.Object(
    {
      items: nullableArray(Type.Ref('Status')),
      total: Type.Integer({ format: 'int64' }),
      next_cursor: Type.Optional(Type.String()),
      partial: Type.Optional(Type.Boolean()),
      partial_errors: Type.Optional(nullableArray(Type.String())),
    },
    { $id: 'ListBodyStatus', title: 'ListBodyStatus', additionalProperties: false },
  ),
);

/** Upstream `ServiceRestartOutputBody`. */
export const ServiceRestartOutputBody = named(
  Type.Object(
    {
      status: Type.String({ description: 'Operation result (`ok`).' }),
      action: Type.String({ description: 'Action performed (`restart`).' }),
      service: Type.String({ description: 'Service name.' }),
    },
    { $id: 'ServiceRestartOutputBody', title: 'ServiceRestartOutputBody', additionalProperties: false },
  ),
);

/** `{cityName}/{name}` of the per-service routes. */
export const ServiceParams = Type.Object({
  cityName: CityNameParam,
  name: Type.String({ description: 'Service name.' }),
});

/** The family's shared schemas, registered by its routes. */
export const WORKSPACE_SERVICE_SCHEMAS = [ServiceStatus, ListBodyStatus, ServiceRestartOutputBody] as const;
