/**
 * Upstream's bootstrap profiles (CityCreateRequest.bootstrap_profile) and the profile each one means in a
 * city's config: `kubernetes` and `kubernetes-cell` are aliases of `k8s-cell`. The one list: the request
 * schema's enum, the supervisor's normalization and the CLI's `--bootstrap-profile` choices all read it.
 */
export const BOOTSTRAP_PROFILE_MEANING = {
  'k8s-cell': 'k8s-cell',
  kubernetes: 'k8s-cell',
  'kubernetes-cell': 'k8s-cell',
  'single-host-compat': 'single-host-compat',
} as const satisfies Readonly<Record<string, string>>;

/** A profile a create may name. */
export type BootstrapProfile = keyof typeof BOOTSTRAP_PROFILE_MEANING;

/** Every profile a create may name, in upstream's (sorted) order. */
export const BOOTSTRAP_PROFILES: readonly BootstrapProfile[] = Object.keys(
  BOOTSTRAP_PROFILE_MEANING,
) as BootstrapProfile[];
