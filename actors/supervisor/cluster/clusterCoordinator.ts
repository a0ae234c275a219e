import type { CityActor } from '../cityActor.ts';
import type { LiveCities } from '../liveCities.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { SupervisorLog } from '../supervisorLog.ts';
import type { ClusterNode, CityOwnership } from './clusterNode.ts';

/** What the HTTP layer knows of the cluster a supervisor belongs to (cluster mode only). */
export interface ClusterRouting {
  readonly me: { readonly id: string; readonly url: string };
  /** Forward a request for a city another supervisor owns (else: 421 naming the owner). */
  readonly forward: boolean;
  /** Who serves writes to `city`; undefined for a city the cluster does not know (the routes answer 404). */
  route(city: string): CityOwnership | undefined;
  /** True while this supervisor reaches its NATS broker. */
  readonly connected: boolean;
  /** Tells `listener` when the broker connection drops (false) and comes back (true). */
  onConnection(listener: (connected: boolean) => void): () => void;
}

/** What the coordinator needs of its supervisor. */
export interface CoordinatedSupervisor {
  /** The cities this supervisor owns (runs their controllers); the coordinator moves cities in and out. */
  readonly cities: Map<string, CityActor>;
  readonly live: LiveCities;
  readonly log: SupervisorLog;
  readonly logger: Logger;
  openCity(entry: { name: string; path: string }): Promise<CityActor>;
  attach(city: CityActor): void;
  wake(): void;
}

/** How many cities one round tends at once. */
const TEND_CONCURRENCY = 8;

/** Runs at most `size` tasks at once, the rest in arrival order. */
class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];
  constructor(size: number) {
    this.#free = size;
  }
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * The cluster's side of a supervisor, one round every `intervalMs` (at most a third of the lease TTL):
 * renew the leases held; read the registry and the owners; open a read replica of every city of the
 * cluster (its log followed from JetStream, served to lists and streams, never written); adopt every
 * city whose lease nobody holds (the owner died or left: take the lease, fence the log, recover the city
 * so the reconciler restarts it here and completes its pending requests); demote at once a city whose
 * lease was lost (services stopped, kept as a replica). Pending requests of the shared supervisor log
 * count as cities too, so an unregister whose owner died still gets its terminal event.
 */
export class ClusterCoordinator {
  /** Cities of the cluster this supervisor follows without owning them. */
  readonly replicas = new Map<string, CityActor>();
  #timer: NodeJS.Timeout | undefined;
  #renewer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #stopped = false;
  /** Cities being tended now, each by one task that may outlive the round that started it. */
  readonly #tending = new Map<string, Promise<void>>();
  readonly #slots = new Slots(TEND_CONCURRENCY);

  constructor(
    private readonly sup: CoordinatedSupervisor,
    readonly node: ClusterNode,
    private readonly intervalMs: number,
  ) {
    node.onLeaseLost((city, why) => {
      sup.logger.warn({ city, why }, 'city lease lost: no more writes from here');
      this.#demote(city);
    });
  }

  /**
   * Runs the first round now (start-up adopts what nobody owns), then one every interval; leases are also
   * renewed on a timer of their own, so a long round (many cities, a slow broker) never delays a renewal.
   */
  async start(): Promise<void> {
    await this.round(true);
    const renewMs = Math.max(50, Math.min(this.intervalMs, Math.floor(this.node.leases.ttlMs / 4)));
    let renewing: Promise<void> | undefined;
    this.#renewer = setInterval(() => {
      renewing ??= this.node.leases.renewAll().finally(() => (renewing = undefined));
    }, renewMs);
    const loop = (): void => {
      this.#timer = setTimeout(() => {
        void this.round().finally(() => {
          if (!this.#stopped) loop();
        });
      }, this.intervalMs);
    };
    loop();
  }

  /** One round (see the class); concurrent calls share it. Never throws (failures are logged). */
  round(first = false): Promise<void> {
    this.#round ??= this.#run(first).finally(() => (this.#round = undefined));
    return this.#round;
  }

  /** Stops the rounds (leases are given back by `node.leave()`). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#renewer);
    await this.#round;
    await Promise.all(this.#tending.values());
  }

  /** Every city this supervisor serves: owned, then replicas. */
  all(): CityActor[] {
    return [...this.sup.cities.values(), ...this.replicas.values()];
  }

  async #run(first: boolean): Promise<void> {
    if (this.#stopped) return;
    try {
      await this.node.registry.refresh();
      const wanted = new Map(this.node.registry.list().map((e) => [e.name, e.path]));
      for (const req of this.sup.log.pendingEverywhere())
        if (!wanted.has(req.name)) wanted.set(req.name, req.path);
      const started: Promise<void>[] = [];
      for (const [name, path] of wanted) {
        if (this.#stopped) return;
        // Still being tended since an earlier round (a broker timeout): the others go on without it.
        if (this.#tending.has(name)) continue;
        const tending = this.#slots
          .run(() => this.#tend(name, path))
          .catch((err: unknown) =>
            this.sup.logger.warn({ err, city: name }, 'cluster round: city not tended'),
          )
          .finally(() => this.#tending.delete(name));
        this.#tending.set(name, tending);
        started.push(tending);
      }
      // The first round waits for every city (start-up adopts what nobody owns); later rounds wait one
      // interval at most, so a city that is slow to open or recover never holds back the adoption of
      // another whose owner died: failover stays within the TTL plus a round.
      const all = Promise.all(started);
      await (first ? all : Promise.race([all, delay(this.intervalMs)]));
      if (this.#stopped) return;
      for (const [name, city] of this.replicas) {
        if (!wanted.has(name) && !this.#tending.has(name)) await this.#dropReplica(name, city);
      }
    } catch (err) {
      this.sup.logger.warn({ err }, 'cluster round failed');
    }
  }

  async #tend(name: string, path: string): Promise<void> {
    if (this.sup.cities.has(name)) {
      // Created here again after it was someone else's: the old replica's reader goes, the log stays open.
      const stale = this.replicas.get(name);
      this.replicas.delete(name);
      await stale?.log.close();
      return;
    }
    // Ours, but not attached yet: a create in progress here owns it (its handler attaches it).
    if (this.node.leases.holds(name)) return;
    let city = this.replicas.get(name);
    if (!city) {
      city = await this.sup.openCity({ name, path });
      this.replicas.set(name, city);
      this.sup.live.set({
        name: city.name,
        path: city.path,
        journal: city.journal,
        log: city.log,
        running: city.running,
        services: {},
      });
    }
    const owner = await this.node.leases.owner(name);
    if (owner && owner.id !== this.node.me.id) {
      this.node.owners.set(name, { id: owner.id, url: owner.url });
      return;
    }
    this.node.owners.delete(name);
    await this.#adopt(city);
  }

  /** Takes the lease of a city nobody holds, fences its log and recovers it here. */
  async #adopt(city: CityActor): Promise<void> {
    const epoch = await this.node.leases.acquire(city.name);
    if (epoch === undefined) return;
    try {
      await city.log.catchUp();
      await this.node.fenceFor(city.name).takeOver(city.log, epoch);
      if (city.state === 'absent') await city.send({ type: 'REGISTER' });
      await city.send({ type: 'RECOVER' });
    } catch (err) {
      await this.node.leases.release(city.name);
      throw err;
    }
    this.replicas.delete(city.name);
    this.sup.attach(city);
    this.sup.logger.info({ city: city.name, epoch }, 'city adopted');
    this.sup.wake();
  }

  /** A lost lease: the city leaves the owned set at once (the fence already refuses its writes). */
  #demote(name: string): void {
    const city = this.sup.cities.get(name);
    if (!city) return;
    this.sup.cities.delete(name);
    this.replicas.set(name, city);
    this.sup.live.update(name, { services: {} });
    void city.stopServices().then((failure) => {
      if (failure) this.sup.logger.warn({ city: name, failure }, 'stopping a demoted city');
    });
  }

  async #dropReplica(name: string, city: CityActor): Promise<void> {
    this.replicas.delete(name);
    if (this.sup.live.get(name)?.journal === city.journal) this.sup.live.remove(name);
    await city.log.close().catch(() => undefined);
    await city.journal.close().catch(() => undefined);
  }

  /** The HTTP layer's view: who serves each city, and the broker connection. */
  routing(forward: boolean): ClusterRouting {
    const node = this.node;
    return {
      me: node.me,
      forward,
      route: (city) =>
        this.sup.cities.has(city) || this.replicas.has(city)
          ? node.ownership(city, this.sup.cities.has(city))
          : undefined,
      get connected() {
        return node.connected;
      },
      onConnection: (listener) => node.onConnection(listener),
    };
  }

  /** A city this supervisor detached (unregistered): its lease goes back. */
  async released(name: string): Promise<void> {
    await this.node.leases.release(name);
  }
}
