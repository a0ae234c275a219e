import { Type } from 'typebox';

/** Upstream ReadinessItem. */
export const ReadinessItem = Type.Object(
  {
    name: Type.String(),
    kind: Type.String({ description: 'provider or tool' }),
    display_name: Type.String(),
    status: Type.String({
      description: 'configured, needs_auth, not_installed, invalid_configuration or probe_error',
    }),
    detail: Type.Optional(Type.String()),
  },
  { additionalProperties: false, title: 'ReadinessItem' },
);

/** Upstream ReadinessResponse. */
export const ReadinessResponse = Type.Object(
  { items: Type.Record(Type.String(), ReadinessItem) },
  { additionalProperties: false, title: 'ReadinessResponse' },
);

/** Upstream ProviderReadiness. */
export const ProviderReadiness = Type.Object(
  { display_name: Type.String(), status: Type.String(), detail: Type.Optional(Type.String()) },
  { additionalProperties: false, title: 'ProviderReadiness' },
);

/** Upstream ProviderReadinessResponse. */
export const ProviderReadinessResponse = Type.Object(
  { providers: Type.Record(Type.String(), ProviderReadiness) },
  { additionalProperties: false, title: 'ProviderReadinessResponse' },
);

export const ReadinessQuery = Type.Object({
  items: Type.Optional(
    Type.String({
      description: 'Comma-separated readiness items to check (default: claude,codex,gemini,github_cli).',
    }),
  ),
  fresh: Type.Optional(Type.Boolean({ description: 'Force fresh probe, bypassing cache.' })),
});

export const ProviderReadinessQuery = Type.Object({
  providers: Type.Optional(
    Type.String({ description: 'Comma-separated provider names to check (default: claude,codex,gemini).' }),
  ),
  fresh: Type.Optional(Type.Boolean({ description: 'Force fresh probe, bypassing cache.' })),
});
