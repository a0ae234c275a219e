import type { SupervisorConfig } from './supervisorConfig.ts';
import type { CityActor } from './cityActor.ts';
import type { CityOpClaims } from './cityOpClaims.ts';
import type { CityServiceFactory } from '../runtime/cityServices.ts';
import type { EventClock } from '../runtime/eventClock.ts';
import type { ActorObserver } from '../runtime/actorObserver.ts';
import type { JournalBackend } from '../runtime/journal/journal.ts';
import type { LiveCities } from './liveCities.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Readiness } from './readiness.ts';
import type { CityRegistryStore } from './registry.ts';
import type { ScaffoldDeadline } from './scaffoldSteps.ts';
import type { SupervisorLog } from './supervisorLog.ts';

/**
 * The supervisor's state as its operations (create, unregister, the reconcile pass) share it. Internal to
 * `actors/`: the HTTP layer sees only `SupervisorApi`.
 */
export interface SupervisorCore {
  readonly config: SupervisorConfig;
  readonly backend: JournalBackend;
  readonly readiness: Readiness;
  readonly registry: CityRegistryStore;
  readonly log: SupervisorLog;
  /**
   * Every city with an actor: registered ones and ones still being unregistered, by name. Read-only here:
   * `attach` and `detach` are the only writers, so the policy's view and LiveCities move together.
   */
  readonly cities: ReadonlyMap<string, CityActor>;
  readonly live: LiveCities;
  /**
   * City paths held by an operation whose HTTP handler has not answered yet (the reconciler leaves them
   * be); taken only through the conflict policy (machines/cityOps/decideCityOp.ts).
   */
  readonly claims: CityOpClaims;
  /** Slow work in progress per city name (start, stop, unregister). */
  readonly jobs: Map<string, Promise<void>>;
  readonly services: readonly CityServiceFactory[];
  readonly hardDependencies: readonly string[];
  /** The deadline of each file system step of a create. */
  readonly scaffold: ScaffoldDeadline;
  /** Stamps every event the supervisor's and the cities' machines record (one operation, one clock). */
  readonly clock: EventClock;
  /** Where the supervisor's warnings and failures go (the logger the HTTP server logs through too). */
  readonly logger: Logger;
  /** Told of every machine actor (the live view, the XState inspector). */
  readonly inspection: ActorObserver;
  newRequestId(): string;
  now(): Date;
  /** Asks the reconciler for a pass now. */
  wake(): void;
  /** Opens a city's actor (replaying its log) and keeps LiveCities in step with it; not yet attached. */
  openCity(entry: { name: string; path: string }): Promise<CityActor>;
  /** Adds a city to `cities` and to LiveCities (running=false until it starts). */
  attach(city: CityActor): void;
  /** Takes a city out of `cities` and LiveCities (its streams end) and closes its log handle. */
  detach(city: CityActor): Promise<void>;
}
