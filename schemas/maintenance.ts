import { Type, type Static } from 'typebox';
import { CityNameParam, nullableArray } from './beadsCommon.ts';
import { named } from './named.ts';

/**
 * Wire shapes of store maintenance (`/maintenance/status`, `/maintenance/dolt-gc`) and event-log rotation
 * (`/events/rotate`): upstream's names, fields and requiredness; our descriptions say what each means for
 * a store that is the city's event log (docs/compatibility.md).
 */

const int64 = (description: string) => Type.Integer({ format: 'int64', description });

/** Upstream `MaintenanceRunBody`: one maintenance run's outcome. */
export const MaintenanceRunBody = named(
  Type.Object(
    {
      started_at: Type.String({ description: 'RFC 3339 start of the run (also its id).' }),
      finished_at: Type.String({ description: 'RFC 3339 end of the run.' }),
      duration_s: Type.Number({ format: 'double', description: 'Seconds between start and end.' }),
      stage: Type.String({
        description: "'done' on success, else the failing stage: backup, gc, smoke-test or prune.",
      }),
      err: Type.Optional(Type.String({ description: 'Why the stage failed; absent on success.' })),
      before_bytes: int64('Bytes of the city log before the run (0 when not measured).'),
      after_bytes: int64('Bytes of the city log after the run (0 when not measured).'),
      snapshot_path: Type.Optional(Type.String({ description: 'The snapshot directory this run wrote.' })),
    },
    { $id: 'MaintenanceRunBody', title: 'MaintenanceRunBody', additionalProperties: false },
  ),
);
export type MaintenanceRunBody = Static<typeof MaintenanceRunBody>;

/** Upstream `MaintenanceStatusBody`. */
export const MaintenanceStatusBody = named(
  Type.Object(
    {
      enabled: Type.Boolean({ description: 'Whether [maintenance.dolt] enabled = true in city.toml.' }),
      interval_seconds: int64('Scheduling interval in seconds (0 when disabled).'),
      in_flight: Type.Boolean({ description: 'True while a run is going.' }),
      in_flight_start: Type.Optional(Type.String({ description: 'RFC 3339 start of the run in flight.' })),
      last_run: Type.Optional(Type.Ref('MaintenanceRunBody')),
      next_scheduled: Type.Optional(Type.String({ description: 'RFC 3339 time of the next scheduled run.' })),
      history: nullableArray(Type.Ref('MaintenanceRunBody'), {
        description: 'The last 16 runs of this supervisor, oldest first.',
      }),
    },
    { $id: 'MaintenanceStatusBody', title: 'MaintenanceStatusBody', additionalProperties: false },
  ),
);
/** Its type, with the referenced runs typed (a `Type.Ref` is untyped in TypeBox). */
export type MaintenanceStatusBody = Omit<Static<typeof MaintenanceStatusBody>, 'last_run' | 'history'> & {
  last_run?: MaintenanceRunBody;
  history: MaintenanceRunBody[] | null;
};

/** Upstream `MaintenanceTriggerBody`. */
export const MaintenanceTriggerBody = named(
  Type.Object(
    {
      accepted: Type.Boolean({ description: 'True: the run was started (202) or has finished (200).' }),
      started_at: Type.Optional(Type.String({ description: 'RFC 3339 start of the run (its id).' })),
      run: Type.Optional(Type.Ref('MaintenanceRunBody')),
    },
    { $id: 'MaintenanceTriggerBody', title: 'MaintenanceTriggerBody', additionalProperties: false },
  ),
);
export type MaintenanceTriggerBody = Omit<Static<typeof MaintenanceTriggerBody>, 'run'> & {
  run?: MaintenanceRunBody;
};

/** Upstream `EventRotateAnchor`: the `events.rotated` event that begins the next segment. */
export const EventRotateAnchor = named(
  Type.Object(
    {
      seq: Type.Integer({ format: 'int64', minimum: 0, description: 'Its seq.' }),
      type: Type.String({ description: "'events.rotated'." }),
      ts: Type.String({ format: 'date-time', description: 'Its timestamp.' }),
    },
    { $id: 'EventRotateAnchor', title: 'EventRotateAnchor', additionalProperties: false },
  ),
);

/** Upstream `EventRotateArchive`: the archive a rotation wrote. */
export const EventRotateArchive = named(
  Type.Object(
    {
      path: Type.String({ description: 'Absolute path of the gzipped JSON Lines archive.' }),
      first_seq: Type.Integer({ format: 'int64', minimum: 0, description: 'First seq in the archive.' }),
      last_seq: Type.Integer({ format: 'int64', minimum: 0, description: 'Last seq in the archive.' }),
      compression_status: Type.Union([Type.Literal('pending'), Type.Literal('complete')], {
        description: "'complete' once the archive is written whole.",
      }),
    },
    { $id: 'EventRotateArchive', title: 'EventRotateArchive', additionalProperties: false },
  ),
);

/** Upstream `EventRotateResponse`. */
export const EventRotateResponse = named(
  Type.Object(
    {
      rotated: Type.Boolean({ description: 'Whether an archive was produced.' }),
      reason: Type.Optional(Type.String({ description: 'Why nothing was rotated.' })),
      archive: Type.Optional(Type.Ref('EventRotateArchive')),
      anchor_event: Type.Optional(Type.Ref('EventRotateAnchor')),
    },
    { $id: 'EventRotateResponse', title: 'EventRotateResponse', additionalProperties: false },
  ),
);
export type EventRotateResponse = Omit<Static<typeof EventRotateResponse>, 'archive' | 'anchor_event'> & {
  archive?: Static<typeof EventRotateArchive>;
  anchor_event?: Static<typeof EventRotateAnchor>;
};

/** `?wait=` of the trigger and rotate operations. */
export const WaitQuery = Type.Object({
  wait: Type.Optional(Type.Boolean({ description: 'Answer only once the work is finished.' })),
});

export const CityParams = Type.Object({ cityName: CityNameParam });

/** The family's shared schemas, registered by its routes. */
export const MAINTENANCE_SCHEMAS = [
  MaintenanceRunBody,
  MaintenanceStatusBody,
  MaintenanceTriggerBody,
  EventRotateAnchor,
  EventRotateArchive,
  EventRotateResponse,
] as const;
