/**
 * The sessions service of a city, started in the `validating_agents` phase after its bead store (sessions
 * are beads): it opens the city's runtime provider and starts the reconciler.
 */
import { execFileSync } from 'node:child_process';
import { BEAD_SERVICE } from '../beads/startBeadService.ts';
import type { BeadStore } from '../beads/beadStore.ts';
import type { CityService, CityServiceContext, CityServiceFactory } from '../runtime/cityServices.ts';
import { UnavailableError } from '../runtime/errors.ts';
import { defaultLogger } from '../runtime/logger.ts';
import { SessionActorReporter } from './sessionActors.ts';
import type { SessionThresholds } from '../../machines/sessions/thresholds.ts';
import { parseDuration } from '../runtime/duration.ts';
import { sessionRuntimeOf } from '../../machines/config/sessionProvider.ts';
import { openRuntimeProvider, type RuntimeKind } from './runtime/openProvider.ts';
import { SESSION_SERVICE, type SessionApi } from './sessionApi.ts';
import { SessionService } from './sessionService.ts';

declare module '../runtime/cityServices.ts' {
  interface CityServiceRegistry {
    sessions: SessionApi;
  }
}

export interface SessionServiceFactoryOptions {
  /** tmux (the default where tmux is installed), subprocess (elsewhere), or the tests' fake. */
  runtime?: RuntimeKind;
  thresholds?: Partial<SessionThresholds>;
  env?: Record<string, string>;
}

let tmuxPresent: boolean | undefined;
function hasTmux(): boolean {
  if (tmuxPresent === undefined) {
    try {
      execFileSync('tmux', ['-V'], { stdio: 'ignore' });
      tmuxPresent = true;
    } catch {
      tmuxPresent = false;
    }
  }
  return tmuxPresent;
}

const RUNTIMES: readonly RuntimeKind[] = ['tmux', 'subprocess', 'fake'];

/** `GC_SESSION_RUNTIME` chooses the runtime for every city; unset: tmux when installed, else subprocess. */
export function runtimeKindFrom(env: NodeJS.ProcessEnv): RuntimeKind {
  const asked = env.GC_SESSION_RUNTIME;
  if (asked && (RUNTIMES as readonly string[]).includes(asked)) return asked as RuntimeKind;
  if (asked)
    throw new Error(`GC_SESSION_RUNTIME must be one of ${RUNTIMES.join(', ')}, not ${JSON.stringify(asked)}`);
  return hasTmux() ? 'tmux' : 'subprocess';
}

export async function startSessionService(
  city: CityServiceContext,
  options: SessionServiceFactoryOptions = {},
): Promise<CityService & { service: SessionService }> {
  const store = city.started?.[BEAD_SERVICE];
  if (!store) throw new UnavailableError(`city ${city.name} has no bead store for its sessions`);
  // The tests' choice, then the city's `[session] provider`, then the supervisor's environment.
  const runtime = openRuntimeProvider(
    options.runtime ?? sessionRuntimeOf(city.config.session) ?? runtimeKindFrom(process.env),
    {
      city: city.name,
      home: city.home ?? city.path,
    },
  );
  const service = new SessionService({
    city: city.name,
    path: city.path,
    store,
    runtime,
    config: city.config,
    logger: city.logger ?? defaultLogger(),
    thresholds: {
      ...thresholdsFrom(city.config.session ?? {}),
      ...shutdownTimeoutFrom(city.config.daemon),
      ...options.thresholds,
    },
    ...(options.env ? { env: options.env } : {}),
  });
  await service.startService();
  const reporter = city.observer ? await reportSessionActors(city, store, service) : undefined;
  return {
    service,
    stop: async () => {
      reporter?.();
      await service.stopService();
    },
    end: () => service.endSessions(),
  };
}

/**
 * Shows the city's sessions as session-machine actors to the inspection hub, from the bead store's model
 * now and the city log from then on. Returns what ends them (the city stops).
 */
async function reportSessionActors(
  city: CityServiceContext,
  store: BeadStore,
  service: SessionService,
): Promise<() => void> {
  const reporter = new SessionActorReporter(city.name, city.observer!);
  const seq = store.model.seq;
  reporter.seed(service.book.openSessions());
  await city.log.attach(reporter, seq);
  return () => {
    city.log.detach(reporter);
    reporter.stop();
  };
}

/** The factory the supervisor's default services list holds. */
export function sessionServiceFactory(
  options: SessionServiceFactoryOptions = {},
): CityServiceFactory<typeof SESSION_SERVICE> {
  return {
    name: SESSION_SERVICE,
    phase: 'validating_agents',
    start: (city) => startSessionService(city, options),
  };
}

/** `[session]` keys of city.toml (upstream-style snake case) → threshold fields. */
const DURATIONS: Record<string, keyof SessionThresholds> = {
  tick: 'tickMs',
  patrol_interval: 'tickMs',
  startup_timeout: 'startupTimeoutMs',
  stability: 'stabilityMs',
  quarantine: 'quarantineMs',
  restart_backoff: 'backoffBaseMs',
  restart_backoff_max: 'backoffMaxMs',
  idle_timeout: 'idleTimeoutMs',
  drain_timeout: 'drainTimeoutMs',
  create_timeout: 'createWaitMs',
  message_timeout: 'messageTimeoutMs',
};
/**
 * Upstream `[session]` keys that are not thresholds: `provider` chooses the runtime (above); the others
 * are read but not applied (config validation warns about them).
 */
const NOT_THRESHOLDS = new Set([
  'provider',
  'socket',
  'setup_timeout',
  'nudge_ready_timeout',
  'nudge_retry_interval',
  'nudge_lock_timeout',
  'debounce_ms',
  'display_ms',
]);
const COUNTS: Record<string, keyof SessionThresholds> = {
  max_wake_attempts: 'maxWakeAttempts',
  max_wakes_per_tick: 'maxWakesPerTick',
};

/**
 * The thresholds a city's `[session]` table sets. @throws Error naming the key for a bad value (the city's
 * start fails with it, as for any other bad city.toml).
 */
export function thresholdsFrom(table: Record<string, string | number>): Partial<SessionThresholds> {
  const out: Partial<SessionThresholds> = {};
  for (const [key, value] of Object.entries(table)) {
    if (NOT_THRESHOLDS.has(key)) continue;
    try {
      if (key in DURATIONS)
        out[DURATIONS[key]!] = parseDuration(typeof value === 'number' ? `${value}ms` : value);
      else if (key in COUNTS && typeof value === 'number' && Number.isInteger(value) && value >= 0) {
        out[COUNTS[key]!] = value;
      } else throw new Error(`unknown key or bad value ${JSON.stringify(value)}`);
    } catch (err) {
      throw new Error(`city.toml [session] ${key}: ${(err as Error).message}`, { cause: err });
    }
  }
  return out;
}

/** `[daemon] shutdown_timeout` (upstream's key): how long a city's stop waits after interrupting its sessions. */
export function shutdownTimeoutFrom(
  daemon: Record<string, string | number> | undefined,
): Partial<SessionThresholds> {
  const value = daemon?.shutdown_timeout;
  if (value === undefined) return {};
  try {
    return { shutdownTimeoutMs: parseDuration(typeof value === 'number' ? `${value}ms` : value) };
  } catch (err) {
    throw new Error(`city.toml [daemon] shutdown_timeout: ${(err as Error).message}`, { cause: err });
  }
}
