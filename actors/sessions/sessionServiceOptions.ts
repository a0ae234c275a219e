/** What a city's session service is built from (startSessionService.ts gives them; tests give their own). */
import type { CityConfig } from '../../schemas/cityToml.ts';
import type { SessionThresholds } from '../../machines/sessions/thresholds.ts';
import type { Logger } from '../runtime/logger.ts';
import type { BeadStore } from '../beads/index.ts';
import type { RuntimeProvider } from './runtime/provider.ts';

export interface SessionServiceOptions {
  city: string;
  path: string;
  store: BeadStore;
  runtime: RuntimeProvider;
  config: CityConfig;
  logger: Logger;
  thresholds?: Partial<SessionThresholds>;
  /**
   * The thresholds a city config sets (its `[session]` and `[daemon]` tables, the fixed ones over them):
   * applied again on each {@link SessionService.setConfig}, so a hand edit takes effect without a restart.
   * @throws Error naming the key for a bad value (the running thresholds stay).
   */
  thresholdsOf?: (config: CityConfig) => Partial<SessionThresholds>;
  now?: () => number;
  /** Extra environment for every session's process. */
  env?: Record<string, string>;
  /** gc's hook settings file, when installed (passed to CLIs whose preset has a `settingsFlag`). */
  hookSettings?: string;
  /** What setup commands get beside the session's environment (`GC_TMUX_SOCKET` on tmux). */
  setupEnv?: Record<string, string>;
}
