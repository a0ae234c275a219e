import type { CityConfig } from '../config/cityConfig.ts';
import type { ActorObserver } from './actorObserver.ts';
import type { Journal } from './journal/journal.ts';
import type { Logger } from './logger.ts';
import type { LogRuntime } from './logRuntime/logRuntime.ts';

/**
 * The startup phases a city goes through after it is registered, in order; each finished phase is
 * reported in `phases_completed`. A create completes once all have run.
 */
export const CITY_PHASES = [
  'materializing_packs',
  'starting_bead_store',
  'resolving_formulas',
  'validating_agents',
] as const;
export type CityPhase = (typeof CITY_PHASES)[number];

/** What a phase and a city service see of the city being started. */
export interface CityServiceContext {
  readonly name: string;
  readonly path: string;
  /** The city's own event log. */
  readonly journal: Journal;
  /** Its one writer: a service appends and folds through it, never through `journal` directly. */
  readonly log: LogRuntime;
  /** Its `city.toml`, as read by the first phase. */
  readonly config: CityConfig;
  /** The supervisor's logger (absent where a test or tool builds the context itself). */
  readonly logger?: Logger;
  /** The supervisor's home (`GC_HOME`): a city's tmux server is named after it and the city. */
  readonly home?: string;
  /** The services started in the earlier phases of this start, by name (the bead store for sessions). */
  readonly started?: ReadonlyMap<string, unknown>;
  /** The supervisor's inspection hub: a service whose units are machine actors (sessions) reports them here. */
  readonly observer?: ActorObserver;
}

/**
 * A started per-city service (a bead store, …): `service` is what routes see in
 * `LiveCity.services[name]`; `stop` ends it.
 */
export interface CityService {
  readonly service: unknown;
  /** Stops the service; called when the city stops, is unregistered, or a later phase of its start fails. */
  stop(): Promise<void>;
}

/**
 * The hook later issues plug real services in with: `start` runs in its `phase` of every city start; the
 * service it resolves is put into `LiveCity.services[name]` and stopped (in reverse start order) when the
 * controller stops. A throw fails the start: the city goes to `failed` and a pending create answers
 * `request.failed` (`city_init_failed`) with the error's message.
 *
 * @example
 * const beads: CityServiceFactory = {
 *   name: BEAD_SERVICE,
 *   phase: 'starting_bead_store',
 *   start: (city) => startBeadService(city),
 * };
 */
export interface CityServiceFactory {
  readonly name: string;
  readonly phase: CityPhase;
  start(city: CityServiceContext): Promise<CityService>;
}
