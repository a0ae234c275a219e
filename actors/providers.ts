/**
 * The builtin providers a city's default session template may name, with the executable each needs on
 * the host, and the bootstrap profiles a create may ask for (upstream's builtin lists).
 */
export const BUILTIN_PROVIDERS: Readonly<Record<string, { binary: string; displayName: string }>> = {
  claude: { binary: 'claude', displayName: 'Claude Code' },
  codex: { binary: 'codex', displayName: 'Codex' },
  gemini: { binary: 'gemini', displayName: 'Gemini CLI' },
  cursor: { binary: 'cursor-agent', displayName: 'Cursor' },
  copilot: { binary: 'copilot', displayName: 'GitHub Copilot' },
  amp: { binary: 'amp', displayName: 'Amp' },
  opencode: { binary: 'opencode', displayName: 'OpenCode' },
  auggie: { binary: 'auggie', displayName: 'Auggie' },
  pi: { binary: 'pi', displayName: 'Pi' },
  omp: { binary: 'omp', displayName: 'OMP' },
};

export const isBuiltinProvider = (name: string): boolean => Object.hasOwn(BUILTIN_PROVIDERS, name);

/** Accepted bootstrap profiles and what each normalizes to (`kubernetes*` are aliases of `k8s-cell`). */
export const BOOTSTRAP_PROFILES: Readonly<Record<string, string>> = {
  'k8s-cell': 'k8s-cell',
  kubernetes: 'k8s-cell',
  'kubernetes-cell': 'k8s-cell',
  'single-host-compat': 'single-host-compat',
};

/** The normalized profile, or undefined when `name` is not a known profile. Pure. */
export const normalizeBootstrapProfile = (name: string): string | undefined =>
  Object.hasOwn(BOOTSTRAP_PROFILES, name) ? BOOTSTRAP_PROFILES[name] : undefined;

/**
 * Executables the supervisor itself needs to run a city: `sh` runs a city's `start_command`. A create on a
 * host without them answers 503.
 */
export const HARD_DEPENDENCIES: readonly string[] = ['sh'];
