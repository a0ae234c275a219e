/**
 * The sessions service of a city, started in the `validating_agents` phase after its bead store (sessions
 * are beads): it opens the city's runtime provider and starts the reconciler.
 */
import { execFileSync } from 'node:child_process';
import { BEAD_SERVICE } from '../beads/index.ts';
import type { BeadStore } from '../beads/index.ts';
import type { CityService, CityServiceContext, CityServiceFactory } from '../runtime/cityServices.ts';
import { UnavailableError } from '../runtime/errors.ts';
import { defaultLogger } from '../runtime/logger.ts';
import { SessionActorReporter } from './sessionActors.ts';
import type { SessionThresholds } from '../../machines/sessions/thresholds.ts';
import type { CityConfig } from '../../schemas/cityToml.ts';
import { parseDuration } from '../runtime/duration.ts';
import { acpSessionSettings, type AcpSessionSettings } from '../../machines/config/sessionAcp.ts';
import type { AcpProviderOptions } from './runtime/acpProvider.ts';
import { openRuntimeProvider, parseRuntimeKind, type RuntimeKind } from './runtime/openProvider.ts';
import { SESSION_SERVICE, type SessionApi } from './sessionApi.ts';
import { installClaudeHooks } from './providerHooks.ts';
import { cityEnvironment } from './sessionEnv.ts';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';
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

const RUNTIMES = 'tmux, subprocess, acp, fake or exec:<script>';
/** Upstream's runtimes this supervisor does not have (refused at create and by validate). */
const UNAVAILABLE = ['k8s', 'hybrid', 'fail'];

/** `GC_SESSION_RUNTIME` chooses the runtime for every city; unset: tmux when installed, else subprocess. */
export function runtimeKindFrom(env: NodeJS.ProcessEnv): RuntimeKind {
  const asked = env.GC_SESSION_RUNTIME;
  if (asked) {
    const kind = parseRuntimeKind(asked);
    if (!kind) throw new Error(`GC_SESSION_RUNTIME must be ${RUNTIMES}, not ${JSON.stringify(asked)}`);
    return kind;
  }
  return hasTmux() ? 'tmux' : 'subprocess';
}

/**
 * The runtime a city's `[session] provider` names (upstream's key), else the supervisor's choice.
 * @throws Error naming the key for a value that names no runtime (the city's start fails with it).
 */
export function cityRuntimeKind(table: Record<string, string | number>, env: NodeJS.ProcessEnv): RuntimeKind {
  const asked = table.provider;
  if (asked === undefined || asked === '') return runtimeKindFrom(env);
  const kind = typeof asked === 'string' ? parseRuntimeKind(asked) : undefined;
  // A name upstream does not know runs on the default runtime, as upstream (validate warns); one it knows
  // and we lack (k8s) was refused at create; an exec: without a script is a mistake, not a name.
  if (!kind && typeof asked === 'string' && !asked.startsWith('exec:') && !UNAVAILABLE.includes(asked))
    return runtimeKindFrom(env);
  if (!kind)
    throw new Error(`city.toml [session] provider must be ${RUNTIMES}, not ${JSON.stringify(asked)}`);
  return kind;
}

export async function startSessionService(
  city: CityServiceContext,
  options: SessionServiceFactoryOptions = {},
): Promise<CityService & { service: SessionService }> {
  const store = city.started?.[BEAD_SERVICE];
  if (!store) throw new UnavailableError(`city ${city.name} has no bead store for its sessions`);
  // The tests' choice, then the city's `[session] provider`, then the supervisor's environment.
  const runtimeKind = options.runtime ?? cityRuntimeKind(city.config.session ?? {}, process.env);
  const runtime = openRuntimeProvider(
    runtimeKind,
    {
      city: city.name,
      home: city.home ?? city.path,
    },
    acpOptions(acpSessionSettings(city.config.sessionAcp)),
  );
  // Provider hooks: a city whose .claude/settings.json is broken still starts (its sessions run without).
  let hookSettings: string | undefined;
  try {
    hookSettings = installClaudeHooks(city.path);
  } catch (err) {
    (city.logger ?? defaultLogger()).warn({ err, city: city.name }, 'provider hooks not installed');
  }
  // The city's `[session]` and `[daemon]` thresholds, the tests' over them; again on each config edit.
  const thresholdsOf = (config: CityConfig): Partial<SessionThresholds> => ({
    ...thresholdsFrom(config.session ?? {}),
    ...shutdownTimeoutFrom(config.daemon),
    ...options.thresholds,
  });
  const service = new SessionService({
    city: city.name,
    path: city.path,
    store,
    runtime,
    config: city.config,
    logger: city.logger ?? defaultLogger(),
    thresholds: thresholdsOf(city.config),
    thresholdsOf,
    ...(hookSettings ? { hookSettings } : {}),
    // Upstream's setup scripts reach the session's tmux server through GC_TMUX_SOCKET (gastown's theme).
    ...(runtimeKind === 'tmux'
      ? { setupEnv: { GC_TMUX_SOCKET: tmuxSocketFor(city.name, city.home ?? city.path) } }
      : {}),
    env: {
      ...cityEnvironment({ city: city.name, path: city.path, home: city.home, env: process.env }),
      ...options.env,
    },
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

/** `[session.acp]` as the ACP runtime takes it (nudge_busy_timeout is not applied: prompts queue). */
function acpOptions(s: AcpSessionSettings): AcpProviderOptions {
  return { handshakeTimeoutMs: s.handshakeTimeoutMs, maxLines: s.outputBufferLines };
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
