import { randomHex } from '../runtime/randomHex.ts';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { CityActor } from './cityActor.ts';
import { closeDeparted, detachCity, readerBackend } from './cityDetach.ts';
import { CityOpClaims } from './cityOpClaims.ts';
import { createCity } from './cityCreate.ts';
import { EventClock } from '../runtime/eventClock.ts';
import { ActorInspection } from '../inspect/index.ts';
import type { CityServiceFactory } from '../runtime/cityServices.ts';
import { unregisterCity } from './cityUnregister.ts';
import type { SupervisorConfig } from './supervisorConfig.ts';
import { ConflictError, NotFoundError, UnavailableError } from '../runtime/errors.ts';
import { registerCity } from './cityRegister.ts';
import { systemHostProbe, type HostProbe } from './hostProbe.ts';
import type { JournalBackend } from '../runtime/journal/journal.ts';
import { LiveCities } from './liveCities.ts';
import { defaultLogger, type Logger } from '../runtime/logger.ts';
import { HARD_DEPENDENCIES } from '../config/index.ts';
import { Readiness } from './readiness.ts';
import { reconcilePass } from './reconcile.ts';
import { Reconciler } from './reconciler.ts';
import { ClusterCoordinator } from './cluster/clusterCoordinator.ts';
import { ClusterNode, clusterLogHome } from './cluster/clusterNode.ts';
import { CityRegistry, type CityRegistryStore } from './registry.ts';
import {
  DEFAULT_SCAFFOLD_STEP_TIMEOUT_MS,
  type ScaffoldDeadline,
  type ScaffoldStep,
} from './scaffoldSteps.ts';
import {
  SUPERVISOR_VERSION,
  type AsyncAccepted,
  type CityDetailView,
  type CityInfoView,
  type CreateCityInput,
  type RegisterCityInput,
  type SupervisorApi,
} from './supervisorApi.ts';
import type { SupervisorCore } from './supervisorCore.ts';
import { SupervisorLog } from './supervisorLog.ts';

/** What a supervisor may be given besides its configuration (test seams and plug-in points). */
export interface SupervisorOptions {
  /** The host as readiness probes and creates see it (default: the real one; `home` resolves relative dirs). */
  host?: HostProbe;
  /**
   * Per-city services started in the startup phases (default none; a served supervisor starts its families'
   * services, `servicesOf(FAMILIES)` from http/families.ts).
   */
  services?: readonly CityServiceFactory[];
  /** Executables a create needs on the host (default `HARD_DEPENDENCIES`). */
  hardDependencies?: readonly string[];
  newRequestId?: () => string;
  /** The wall clock (also of event timestamps, which never go backwards even when it does). */
  now?: () => Date;
  /** How long one file system step of a create may take before the create fails with 503 (default 10 s). */
  scaffoldStepTimeoutMs?: number;
  /** Test seam: awaited inside each scaffold step's deadline before its work (a test hangs a step here). */
  beforeScaffoldStep?: (step: ScaffoldStep) => Promise<void> | undefined;
  /** How long `stopCity` waits for the controller to stop, and `close` for city jobs (default 10 s). */
  stopTimeoutMs?: number;
  /** Where warnings and failures go (default: the shared default logger); `runSupervisor` passes Fastify's. */
  logger?: Logger;
  /** The hub every actor reports to (live actor view, XState inspector); default: a new one. */
  inspection?: ActorInspection;
}

/** `req-` + 24 lowercase hex characters (12 random bytes), as upstream. */
export const newAsyncRequestId = (): string => `req-${randomHex(12)}`;

/** The city states `GET /v0/cities` does not list: not registered (yet, or any more). */
const UNLISTED = new Set(['absent', 'unregistering', 'unregistered']);

/**
 * The supervisor: its log and requests, the registry, a city actor per registered city, the reconciler.
 * `start` rebuilds all of it by replaying the logs, so whatever was accepted before a crash completes
 * after the restart.
 */
export class Supervisor implements SupervisorApi, SupervisorCore {
  readonly startedAt: Date;
  readonly version = SUPERVISOR_VERSION;
  readonly cities = new Map<string, CityActor>();
  readonly claims: CityOpClaims;
  readonly jobs = new Map<string, Promise<void>>();
  readonly live: LiveCities;
  readonly readiness: Readiness;
  readonly services: readonly CityServiceFactory[];
  readonly hardDependencies: readonly string[];
  readonly newRequestId: () => string;
  readonly now: () => Date;
  readonly scaffold: ScaffoldDeadline;
  readonly logger: Logger;
  readonly inspection: ActorInspection;
  readonly #reconciler: Reconciler;
  readonly #stopTimeoutMs: number;
  #closing: Promise<void> | undefined;
  /** Opens departed cities' read handles (cityDetach.ts); closed with the supervisor. */
  readonly #readers: JournalBackend | undefined;
  /** Cluster mode (`config.cluster`): leases, replicas, adoption. Undefined for a lone supervisor. */
  cluster: ClusterCoordinator | undefined;

  private constructor(
    readonly config: SupervisorConfig,
    readonly backend: JournalBackend,
    readonly registry: CityRegistryStore,
    readonly log: SupervisorLog,
    readonly clock: EventClock,
    options: SupervisorOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.logger = options.logger ?? defaultLogger();
    this.inspection = options.inspection ?? new ActorInspection();
    this.scaffold = {
      stepTimeoutMs: options.scaffoldStepTimeoutMs ?? DEFAULT_SCAFFOLD_STEP_TIMEOUT_MS,
      ...(options.beforeScaffoldStep ? { beforeStep: options.beforeScaffoldStep } : {}),
    };
    this.startedAt = this.now();
    this.newRequestId = options.newRequestId ?? newAsyncRequestId;
    this.readiness = new Readiness(options.host ?? systemHostProbe(), () => this.now().getTime());
    this.services = options.services ?? [];
    this.hardDependencies = options.hardDependencies ?? HARD_DEPENDENCIES;
    this.#stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
    this.live = new LiveCities(log.journal, { release: closeDeparted });
    this.#readers = readerBackend(backend, config);
    const cities = this.cities;
    this.claims = new CityOpClaims({
      get pending() {
        return log.pending();
      },
      get registry() {
        return registry.list();
      },
      cities,
    });
    this.#reconciler = new Reconciler(
      () => reconcilePass(this),
      config.tickMs,
      (err) => this.logger.error({ err }, 'reconcile failed'),
    );
  }

  /**
   * Opens the supervisor's log and registry under `config.home`, replays them and every registered city's
   * log, records `supervisor.started {previous_exit}`, and starts the reconciler (which restarts the
   * cities and completes requests accepted before a crash).
   * Effects: creates `$GC_HOME`; opens logs through `backend`. Throws what the backend or the file system
   * throws.
   */
  static async start(
    config: SupervisorConfig,
    backend: JournalBackend,
    options: SupervisorOptions = {},
  ): Promise<Supervisor> {
    await mkdir(config.home, { recursive: true });
    const clock = new EventClock(options.now);
    const inspection = options.inspection ?? new ActorInspection();
    if (config.cluster) return Supervisor.#startInCluster(config, backend, clock, { ...options, inspection });
    const log = await SupervisorLog.open(backend, config.home, clock, inspection);
    const registry = await CityRegistry.load(config.home);
    const sup = new Supervisor(config, backend, registry, log, clock, { ...options, inspection });
    for (const entry of registry.list()) {
      if (!existsSync(entry.path)) {
        sup.logger.warn({ city: entry.name, path: entry.path }, 'city directory is missing; not started');
        continue;
      }
      const city = await sup.openCity(entry);
      // Registered but its log never got `city.created` (a crash between the two): record it now.
      if (city.state === 'absent') await city.send({ type: 'REGISTER' });
      await city.send({ type: 'RECOVER' });
      sup.attach(city);
    }
    await log.boot();
    sup.#reconciler.start();
    return sup;
  }

  /**
   * A supervisor of cluster `config.cluster`: the registry and the leases in JetStream key-value buckets,
   * the cluster's shared supervisor log, and the coordinator's first round (replicas of every city, adoption
   * of those nobody owns) before `supervisor.started`.
   */
  static async #startInCluster(
    config: SupervisorConfig,
    backend: JournalBackend,
    clock: EventClock,
    options: SupervisorOptions & { inspection: ActorInspection },
  ): Promise<Supervisor> {
    const node = await ClusterNode.join(config);
    try {
      const log = await SupervisorLog.open(
        backend,
        clusterLogHome(node.name),
        clock,
        options.inspection,
        true,
      );
      const sup = new Supervisor(config, backend, node.registry, log, clock, options);
      const interval = Math.max(50, Math.min(config.tickMs, Math.floor(config.leaseTtlMs / 3)));
      sup.cluster = new ClusterCoordinator(sup, node, interval);
      log.reconciles = (name) => sup.cities.has(name);
      await sup.cluster.start();
      await log.boot();
      sup.#reconciler.start();
      return sup;
    } catch (err) {
      await node.leave();
      throw err;
    }
  }

  async openCity(entry: { name: string; path: string }): Promise<CityActor> {
    const city = await CityActor.open(
      this.backend,
      entry,
      () => this.wake(),
      this.clock,
      this.inspection,
      this.cluster?.node.fenceFor(entry.name),
    );
    city.actor.onChange(() => {
      if (
        this.live.get(city.name)?.journal === city.journal &&
        this.live.get(city.name)?.running !== city.running
      ) {
        this.live.update(city.name, { running: city.running });
      }
    });
    return city;
  }

  attach(city: CityActor): void {
    this.cities.set(city.name, city);
    this.live.set({
      name: city.name,
      path: city.path,
      journal: city.journal,
      log: city.log,
      running: city.running,
      services: city.serviceValues(),
    });
  }

  async detach(city: CityActor): Promise<void> {
    this.cities.delete(city.name);
    // Its streams end with the detach; the log itself stays (file or stream), only the writer's handle
    // goes; the supervisor stream reads it on for the grace (cityDetach.ts).
    await detachCity(this.live, this.#readers, city);
    await this.cluster?.released(city.name);
  }

  wake(): void {
    this.#reconciler.poke();
  }

  /** Resolves once no reconcile pass or city job is running (tests and benchmarks use it). */
  async settled(): Promise<void> {
    do {
      await this.#reconciler.idle();
      await Promise.all(this.jobs.values());
    } while (this.jobs.size > 0);
    await this.#reconciler.idle();
  }

  listCities(): CityInfoView[] {
    return (this.cluster ? this.cluster.all() : [...this.cities.values()])
      .filter((c) => !UNLISTED.has(c.state))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((c) => {
        const ctx = c.snapshot.context;
        return {
          name: c.name,
          path: c.path,
          running: c.running,
          status: c.status,
          ...(ctx.error !== undefined && c.state === 'failed' ? { error: ctx.error } : {}),
          phases_completed: [...ctx.phasesCompleted],
        };
      });
  }

  cityDetail(name: string): CityDetailView | undefined {
    const city = this.cities.get(name);
    if (!city?.running) return undefined;
    const ctx = city.snapshot.context;
    const since = ctx.startedAt ? Date.parse(ctx.startedAt) : this.now().getTime();
    return {
      name,
      path: city.path,
      suspended: ctx.suspended,
      uptime_sec: Math.max(0, Math.floor((this.now().getTime() - since) / 1000)),
      agent_count: city.config?.agents.length ?? 0,
      rig_count: 0,
      ...(city.config?.provider ? { provider: city.config.provider } : {}),
      version: this.version,
    };
  }

  createCity(input: CreateCityInput): Promise<AsyncAccepted> {
    return createCity(this, input);
  }

  unregisterCity(name: string): Promise<AsyncAccepted> {
    return unregisterCity(this, name);
  }

  async stopCity(name: string): Promise<void> {
    const city = this.#runningCity(name);
    this.claims.check({ op: 'stop', name, path: city.path });
    const stopped = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new UnavailableError(`city ${name} did not stop within ${this.#stopTimeoutMs} ms`));
      }, this.#stopTimeoutMs);
      const off = city.actor.onChange(() => {
        if (city.state !== 'stopping') {
          clearTimeout(timer);
          off();
          resolve();
        }
      });
    });
    if (!(await city.send({ type: 'STOP' }))) return;
    await stopped;
  }

  /**
   * Starts a registered city that is stopped (or whose start failed) again and resolves once it runs; a
   * running city resolves at once, one still starting once it runs.
   * @throws NotFoundError 404 (not registered), ConflictError 409 (stopping, or another operation in
   *   progress), UnavailableError 503 (the start failed, with its error, or did not finish in time).
   */
  async startCity(name: string): Promise<void> {
    const city = this.cities.get(name);
    if (!city || city.state === 'unregistering' || city.state === 'unregistered') {
      throw new NotFoundError(`city not registered with supervisor: ${name}`);
    }
    this.claims.check({ op: 'stop', name, path: city.path });
    if (city.state === 'running') return;
    if (city.state === 'stopping') throw new ConflictError(`city ${name} is stopping; try again`);
    const timeoutMs = Math.max(this.#stopTimeoutMs, 60_000);
    const settled = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new UnavailableError(`city ${name} did not start within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = city.actor.onChange(() => {
        const state = city.state;
        if (state !== 'running' && state !== 'failed' && state !== 'stopped') return;
        clearTimeout(timer);
        off();
        if (state === 'running') resolve();
        else
          reject(
            new UnavailableError(
              `city ${name} failed to start: ${city.snapshot.context.error ?? 'it stopped while starting'}`,
            ),
          );
      });
    });
    // Back to `registered`: the reconciler (woken on entry) runs the start phases again.
    if (city.state === 'stopped' || city.state === 'failed') await city.send({ type: 'RECOVER' });
    this.wake();
    await settled;
  }

  registerCity(input: RegisterCityInput): Promise<AsyncAccepted> {
    return registerCity(this, input);
  }

  async setSuspended(name: string, suspended: boolean): Promise<void> {
    const city = this.#runningCity(name);
    await city.send({ type: suspended ? 'SUSPEND' : 'RESUME' });
  }

  /**
   * Stops gracefully: no more requests, the reconciler and running jobs finish, services stop (no event:
   * a controller that dies with its supervisor restarts with the next), then `supervisor.stopped`.
   * Does not close the backend (its owner does). Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.log.beginStop();
      await this.#reconciler.stop();
      // A start stuck in a service must not hold the shutdown forever; the next run starts the city anew.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(this.jobs.values()),
        new Promise((resolve) => (timer = setTimeout(resolve, this.#stopTimeoutMs))),
      ]);
      clearTimeout(timer);
      await this.cluster?.stop();
      for (const city of this.cities.values()) await city.stopServices();
      // Departed cities' read handles go with the supervisor, whatever else fails.
      const readersClosed = this.#readers?.close().catch(() => undefined);
      await this.log.stopped().catch((err: unknown) => {
        if (!this.cluster) throw err;
      });
      await this.cluster?.node.leave();
      await readersClosed;
    })();
    return this.#closing;
  }

  #runningCity(name: string): CityActor {
    const city = this.cities.get(name);
    if (!city?.running) throw new NotFoundError(`city not found or not running: ${name}`);
    return city;
  }
}
