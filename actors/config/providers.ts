import { BOOTSTRAP_PROFILE_MEANING } from '../../schemas/bootstrapProfiles.ts';

/**
 * The builtin providers a city's default session template may name, with the executable each needs on
 * the host (upstream's builtin list). The bootstrap profiles are listed in schemas/bootstrapProfiles.ts.
 */
export const BUILTIN_PROVIDERS: Readonly<Record<string, { binary: string; displayName: string }>> = {
  claude: { binary: 'claude', displayName: 'Claude Code' },
  // Ours: the repository's deterministic agent (bin/gc-mock-agent.mjs), run by the supervisor's own Node.
  mock: { binary: 'node', displayName: 'Mock agent (gc-mock-agent)' },
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

/** The profile a create's `bootstrap_profile` means, or undefined when `name` is not a known profile. Pure. */
export const normalizeBootstrapProfile = (name: string): string | undefined =>
  Object.hasOwn(BOOTSTRAP_PROFILE_MEANING, name)
    ? BOOTSTRAP_PROFILE_MEANING[name as keyof typeof BOOTSTRAP_PROFILE_MEANING]
    : undefined;

/**
 * Executables the supervisor itself needs to run a city: `sh` runs a city's `start_command`. A create on a
 * host without them answers 503.
 */
export const HARD_DEPENDENCIES: readonly string[] = ['sh'];
