import { named } from './named.ts';
import { Type, type Static } from 'typebox';
import { blockingQueryParameters } from './blockingQuery.ts';
import { BOOTSTRAP_PROFILES } from './bootstrapProfiles.ts';
import { nullableArray } from './beadsCommon.ts';
import {
  BeadsDiagnostic,
  StatusAgentDetail,
  StatusNamedSessionDetail,
  StatusRigDetail,
  StatusSessionCountsDetail,
  StatusStoreHealth,
} from './cityStatusDetails.ts';

/** Path parameter of every per-city route (upstream: minLength 1, at least one non-space). */
export const CityNameParams = Type.Object({
  cityName: Type.String({ minLength: 1, pattern: '\\S', description: 'City name.' }),
});

/** The anti-CSRF header every mutation declares (its absence is a 403, checked before validation). */
export const MutationHeaders = Type.Object({
  'x-gc-request': Type.String({
    minLength: 1,
    description:
      "Anti-CSRF header required on mutation requests. Any non-empty value is accepted; the header's presence is what the server checks.",
  }),
});

/** Upstream CityCreateRequest. Unknown fields are refused (422), not stripped. */
export const CityCreateRequest = Type.Object(
  {
    dir: Type.String({
      minLength: 1,
      description: 'Directory to create the city in. Absolute or relative to $HOME.',
    }),
    provider: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "Provider name for the city's default session template. Mutually exclusive with start_command.",
      }),
    ),
    start_command: Type.Optional(
      Type.String({
        description:
          "Custom workspace start command for the city's default session template. Mutually exclusive with provider.",
      }),
    ),
    bootstrap_profile: Type.Optional(
      Type.String({
        enum: [...BOOTSTRAP_PROFILES],
        description: 'Optional bootstrap profile.',
      }),
    ),
  },
  { additionalProperties: false, title: 'CityCreateRequest' },
);
export type CityCreateRequest = Static<typeof CityCreateRequest>;

/** Ours: the body of `POST /v0/cities/register`. Unknown fields are refused (422). */
export const CityRegisterRequest = Type.Object(
  {
    dir: Type.String({
      minLength: 1,
      description: 'An existing city directory (it holds city.toml). Absolute or relative to $HOME.',
    }),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "The registered name (default: city.toml's workspace.name, else the directory's base name).",
      }),
    ),
  },
  { additionalProperties: false, title: 'CityRegisterRequest' },
);
export type CityRegisterRequest = Static<typeof CityRegisterRequest>;

/** Upstream AsyncAcceptedResponse (supervisor scope: no `status`). */
export const AsyncAcceptedResponse = named(
  Type.Object(
    {
      request_id: Type.String({
        description:
          'Correlation ID. Watch /v0/events/stream for request.result.city.create, request.result.city.unregister, or request.failed with this request_id.',
      }),
      event_cursor: Type.String({
        description:
          'Supervisor event-stream cursor captured before the async request was accepted. Pass it as after_cursor to /v0/events/stream to receive the request result without replaying unrelated backlog. 0 when every event log was empty.',
      }),
    },
    { $id: 'AsyncAcceptedResponse', additionalProperties: false, title: 'AsyncAcceptedResponse' },
  ),
);
export type AsyncAcceptedResponse = Static<typeof AsyncAcceptedResponse>;

/** Upstream CityInfo. */
export const CityInfo = Type.Object(
  {
    name: Type.String({ description: 'City name (registry key).' }),
    path: Type.String({ description: 'Absolute city directory.' }),
    running: Type.Boolean({ description: 'True once per-city routes are available.' }),
    status: Type.Optional(Type.String({ description: 'Status text; starting_agents while starting.' })),
    error: Type.Optional(Type.String({ description: 'Why the last start failed.' })),
    phases_completed: Type.Optional(
      Type.Union([Type.Array(Type.String()), Type.Null()], {
        description: 'Startup phases completed so far.',
      }),
    ),
  },
  { additionalProperties: false, title: 'CityInfo' },
);
export type CityInfo = Static<typeof CityInfo>;

/** Upstream SupervisorCitiesOutputBody. */
export const SupervisorCitiesOutputBody = Type.Object(
  {
    items: Type.Union([Type.Array(CityInfo), Type.Null()], {
      description: 'Managed cities with status info.',
    }),
    total: Type.Integer({ description: 'Total count.' }),
  },
  { additionalProperties: false, title: 'SupervisorCitiesOutputBody' },
);
export type SupervisorCitiesOutputBody = Static<typeof SupervisorCitiesOutputBody>;

/** Upstream CityGetResponse. */
export const CityGetResponse = Type.Object(
  {
    name: Type.String(),
    path: Type.String(),
    suspended: Type.Boolean(),
    uptime_sec: Type.Integer(),
    agent_count: Type.Integer(),
    rig_count: Type.Integer(),
    provider: Type.Optional(Type.String()),
    session_template: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
  },
  { additionalProperties: false, title: 'CityGetResponse' },
);

/** Upstream CityPatchInputBody. */
export const CityPatchInputBody = Type.Object(
  { suspended: Type.Optional(Type.Boolean({ description: 'Whether the city is suspended.' })) },
  { additionalProperties: false, title: 'CityPatchInputBody' },
);

/** Upstream OKResponseBody. */
export const OKResponseBody = Type.Object(
  { status: Type.String({ description: 'Operation result.', examples: ['ok'] }) },
  { additionalProperties: false, title: 'OKResponseBody' },
);

const count = (fields: string[]) =>
  Type.Object(Object.fromEntries(fields.map((f) => [f, Type.Integer()])), { additionalProperties: false });

/**
 * Upstream StatusBody: the fields it requires, and its `partial` flags. Work and mail counts come from the
 * city's bead store, agent counts from its agent service, rig counts from its effective config.
 */
export const StatusBody = Type.Object(
  {
    name: Type.String(),
    path: Type.String(),
    uptime_sec: Type.Integer(),
    suspended: Type.Boolean(),
    agent_count: Type.Integer(),
    rig_count: Type.Integer(),
    running: Type.Integer({ description: 'Number of running agent processes.' }),
    agents: count(['total', 'running', 'suspended', 'quarantined']),
    rigs: count(['total', 'suspended']),
    work: count(['in_progress', 'ready', 'open']),
    mail: count(['unread', 'total']),
    version: Type.Optional(Type.String()),
    agent_details: Type.Optional(nullableArray(StatusAgentDetail, { description: 'Per-agent state.' })),
    rig_details: Type.Optional(nullableArray(StatusRigDetail, { description: 'Per-rig detail.' })),
    named_session_details: Type.Optional(
      nullableArray(StatusNamedSessionDetail, { description: 'Per-named-session detail.' }),
    ),
    session_counts_detail: Type.Optional(StatusSessionCountsDetail),
    beads: Type.Optional(BeadsDiagnostic),
    store_health: Type.Optional(StatusStoreHealth),
    partial: Type.Optional(
      Type.Boolean({ description: 'True when one or more status backing reads returned incomplete data.' }),
    ),
    partial_errors: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Human-readable errors from incomplete status backing reads.',
      }),
    ),
  },
  { additionalProperties: false, title: 'StatusBody' },
);

/** Upstream HealthOutputBody: the health of one running city. */
export const HealthOutputBody = Type.Object(
  {
    status: Type.String({ description: 'Health status.', examples: ['ok'] }),
    version: Type.Optional(Type.String({ description: 'Server version.' })),
    city: Type.Optional(Type.String({ description: 'City name.' })),
    uptime_sec: Type.Integer({ description: "Seconds since the city's controller started." }),
  },
  { additionalProperties: false, title: 'HealthOutputBody' },
);

/** Query of GET …/status: upstream's blocking-query parameters. */
export const StatusQuery = Type.Object({
  ...blockingQueryParameters('2m'),
  lite: Type.Optional(
    Type.Boolean({ description: 'Accepted for compatibility; every block is cheap here.' }),
  ),
});
