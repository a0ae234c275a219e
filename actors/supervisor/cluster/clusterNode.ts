import { hostname } from 'node:os';
import { Kvm, type KV } from '@nats-io/kv';
import type { SupervisorConfig } from '../supervisorConfig.ts';
import { JetStreamConnection } from '../../runtime/journal/jetstreamConnection.ts';
import { randomHex } from '../../runtime/randomHex.ts';
import { CityFence, type LeaseView } from './cityFence.ts';
import { CityLeases, type LeaseLoss, type LeaseOwner } from './cityLeases.ts';
import { KvCityRegistry } from './kvRegistry.ts';

/** Where a cluster keeps its shared state in JetStream, all under the supervisors' common prefix. */
export const clusterBuckets = (prefix: string, cluster: string): { leases: string; cities: string } => ({
  leases: `${prefix}_leases_${cluster}`,
  cities: `${prefix}_cities_${cluster}`,
});

/**
 * The home the cluster's shared supervisor log is named after: its stream derives from this path alone
 * (jetstreamNames.ts), so every supervisor of the cluster opens the same `__supervisor__` stream and the
 * composite cursors mean the same on each. No file is written there (the cluster needs JetStream).
 */
export const clusterLogHome = (cluster: string): string => `/gc-cluster/${cluster}`;

/** How a city's owner is known to this supervisor. */
export type CityOwnership = { kind: 'me' } | { kind: 'other'; owner: LeaseOwner } | { kind: 'none' };

/**
 * One supervisor's membership of a cluster: its identity, its NATS connection (apart from the journal's),
 * the lease table and the registry in their key-value buckets, the fence of every city log it opened, and
 * what it last learnt of each city's owner.
 */
export class ClusterNode implements LeaseView {
  readonly fences = new Map<string, CityFence>();
  /** The holder of each city's lease as last read (refreshed every coordinator round). */
  readonly owners = new Map<string, LeaseOwner>();
  readonly #outageListeners = new Set<(connected: boolean) => void>();
  #lostListener: (city: string, why: LeaseLoss) => void = () => {};

  private constructor(
    readonly name: string,
    readonly me: LeaseOwner,
    readonly conn: JetStreamConnection,
    readonly leases: CityLeases,
    readonly registry: KvCityRegistry,
  ) {
    void this.#watchConnection();
  }

  /**
   * Joins cluster `config.cluster` on `config.natsUrl`: connects, creates (or opens) its two buckets and
   * reads the registry. Effects: one NATS connection, up to two KV streams. Throws when the broker cannot
   * be reached or refuses the buckets.
   */
  static async join(config: SupervisorConfig): Promise<ClusterNode> {
    if (!config.cluster || !config.natsUrl) throw new Error('cluster mode needs GC_CLUSTER and GC_NATS_URL');
    const conn = await JetStreamConnection.open(config.natsUrl, 5000);
    try {
      const kvm = new Kvm(conn.js);
      const names = clusterBuckets(config.natsPrefix, config.cluster);
      const leaseKv = await bucket(kvm, names.leases, {
        ttl: config.leaseTtlMs,
        replicas: config.natsReplicas,
      });
      const citiesKv = await bucket(kvm, names.cities, { replicas: config.natsReplicas });
      const me: LeaseOwner = {
        id: `${hostname()}-${process.pid}-${randomHex(2)}`,
        url: config.advertiseUrl ?? '',
      };
      const lost: { to?: (city: string, why: LeaseLoss) => void } = {};
      const leases = new CityLeases(leaseKv, me, config.leaseTtlMs, (city, why) => lost.to?.(city, why));
      const registry = await KvCityRegistry.load(citiesKv, leases);
      const node = new ClusterNode(config.cluster, me, conn, leases, registry);
      lost.to = (city, why) => node.#lostListener(city, why);
      return node;
    } catch (err) {
      await conn.close().catch(() => undefined);
      throw err;
    }
  }

  /** True while the connection to the broker is up. */
  get connected(): boolean {
    return this.conn.connected;
  }

  /** Sets the URL other supervisors forward to (known once the API listens); the next renewal carries it. */
  advertise(url: string): void {
    if (this.me.url === '') this.me.url = url;
  }

  holds(city: string): boolean {
    return this.leases.holds(city);
  }

  knownOwner(city: string): LeaseOwner | undefined {
    return this.owners.get(city);
  }

  /** The fence of `city`'s log (one per city for the life of this node). */
  fenceFor(city: string): CityFence {
    let fence = this.fences.get(city);
    if (!fence) this.fences.set(city, (fence = new CityFence(city, this)));
    return fence;
  }

  /** Who serves writes to `city`: us, another supervisor (as last read), or nobody right now. */
  ownership(city: string, ownedHere: boolean): CityOwnership {
    if (ownedHere && this.leases.holds(city)) return { kind: 'me' };
    const owner = this.owners.get(city);
    return owner && owner.id !== this.me.id ? { kind: 'other', owner } : { kind: 'none' };
  }

  /** Tells `listener` of every lease this node loses. */
  onLeaseLost(listener: (city: string, why: LeaseLoss) => void): void {
    this.#lostListener = listener;
  }

  /** Tells `listener` when the broker connection drops (false) and comes back (true). */
  onConnection(listener: (connected: boolean) => void): () => void {
    this.#outageListeners.add(listener);
    return () => this.#outageListeners.delete(listener);
  }

  /** Gives every held lease back (a graceful stop: the others adopt at their next round) and disconnects. */
  async leave(): Promise<void> {
    await Promise.all(this.leases.heldCities().map((c) => this.leases.release(c)));
    await this.conn.close().catch(() => undefined);
  }

  async #watchConnection(): Promise<void> {
    for await (const s of this.conn.nc.status()) {
      const up = s.type === 'reconnect' ? true : s.type === 'disconnect' ? false : undefined;
      if (up !== undefined) for (const l of this.#outageListeners) l(up);
    }
  }
}

/** Creates a bucket, or opens it when it exists (another supervisor made it first). */
async function bucket(kvm: Kvm, name: string, opts: { ttl?: number; replicas: number }): Promise<KV> {
  try {
    return await kvm.create(name, { history: 1, ...opts });
  } catch {
    return await kvm.open(name);
  }
}
