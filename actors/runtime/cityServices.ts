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

/**
 * The parsed `city.toml`'s type, registered by the family that parses it (config/, as services register
 * themselves below): runtime/ hands the value on without importing the family above it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by config/'s declaration
export interface CityConfigRegistry {}
type ParsedCityConfig = CityConfigRegistry extends { parsed: infer C } ? C : never;

/** What a phase and a city service see of the city being started. */
export interface CityServiceContext {
  readonly name: string;
  readonly path: string;
  /** The city's own event log. */
  readonly journal: Journal;
  /** Its one writer: a service appends and folds through it, never through `journal` directly. */
  readonly log: LogRuntime;
  /** Its `city.toml`, as read by the first phase. */
  readonly config: ParsedCityConfig;
  /** The supervisor's logger (absent where a test or tool builds the context itself). */
  readonly logger?: Logger;
  /** The supervisor's home (`GC_HOME`): a city's tmux server is named after it and the city. */
  readonly home?: string;
  /** The services started in the earlier phases of this start (the bead store for sessions). */
  readonly started?: CityServiceMap;
  /** The supervisor's inspection hub: a service whose units are machine actors (sessions) reports them here. */
  readonly observer?: ActorObserver;
}

/**
 * Every family's service, by the name it is registered under: each family adds its own entry from its
 * `index.ts` (declaration merging, as Fastify's decorators do), so a lookup of a family that is not part of
 * the build does not compile, and a lookup that does is typed: no `unknown`, no downcast.
 *
 * @example
 * declare module '../runtime/cityServices.ts' {
 *   interface CityServiceRegistry {
 *     beads: BeadStore;
 *   }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families' declarations
export interface CityServiceRegistry {}

export type CityServiceName = Extract<keyof CityServiceRegistry, string>;

/** The started services of one city (a family whose phase has not run, or that is not in the list, is absent). */
export type CityServiceMap = { readonly [K in CityServiceName]?: CityServiceRegistry[K] };

/**
 * A started per-city service (a bead store, …): `service` is what routes see in
 * `LiveCity.services[name]`; `stop` ends it.
 */
export interface CityService<S = CityServiceRegistry[CityServiceName]> {
  readonly service: S;
  /** Stops the service; called when the city stops, is unregistered, or a later phase of its start fails. */
  stop(): Promise<void>;
  /**
   * Ends what the service started outside this process (agent processes), before `stop`, when the city
   * stops for good (stop, unregister). Not called when the supervisor itself shuts down: a restarted
   * supervisor adopts what runs.
   */
  end?(): Promise<void>;
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
export interface CityServiceFactory<K extends CityServiceName = CityServiceName> {
  readonly name: K;
  readonly phase: CityPhase;
  start(city: CityServiceContext): Promise<CityService<CityServiceRegistry[K]>>;
}

/** A map of started services, entry by entry: the one place a factory's name is tied back to its value. */
export class CityServiceSet {
  readonly #services: { [K in CityServiceName]?: CityServiceRegistry[K] } = {};

  put<K extends CityServiceName>(name: K, service: CityServiceRegistry[K]): void {
    this.#services[name] = service;
  }

  get map(): CityServiceMap {
    return { ...this.#services };
  }
}
