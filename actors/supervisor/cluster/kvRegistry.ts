import type { KV } from '@nats-io/kv';
import { ConflictError } from '../../runtime/errors.ts';
import { CITY_NAME, type CityRegistryStore, type RegistryEntry } from '../registry.ts';

/** What registering a city in the cluster takes first: its lease (so no one else adopts it meanwhile). */
export interface RegistryLeases {
  acquire(city: string): Promise<number | undefined>;
  release(city: string): Promise<void>;
}

/**
 * The registry of a cluster's cities in a JetStream key-value bucket (one key per city name, the entry
 * `{name, path}`), shared by every supervisor of the cluster. Held in memory between `refresh()`es (the
 * coordinator refreshes it every round); `add` and `remove` write through and update the copy at once.
 * Adding a city takes its lease first: the creator owns what it registers, and a second supervisor
 * registering the same name meanwhile gets a 409 instead of two owners.
 */
export class KvCityRegistry implements CityRegistryStore {
  #entries = new Map<string, RegistryEntry>();

  private constructor(
    private readonly kv: KV,
    private readonly leases: RegistryLeases,
  ) {}

  /** Opens the registry and reads it whole. Throws what the broker throws. */
  static async load(kv: KV, leases: RegistryLeases): Promise<KvCityRegistry> {
    const registry = new KvCityRegistry(kv, leases);
    await registry.refresh();
    return registry;
  }

  /** Reads every entry again (other supervisors add and remove cities). Throws what the broker throws. */
  async refresh(): Promise<void> {
    const next = new Map<string, RegistryEntry>();
    const keys: string[] = [];
    for await (const key of await this.kv.keys()) keys.push(key);
    const entries = await Promise.all(keys.map((k) => this.kv.get(k)));
    for (const entry of entries) {
      if (!entry || entry.operation !== 'PUT') continue;
      try {
        const { name, path } = entry.json<RegistryEntry>();
        if (
          typeof name === 'string' &&
          CITY_NAME.test(name) &&
          typeof path === 'string' &&
          path.startsWith('/')
        )
          next.set(name, { name, path });
      } catch {
        // A value we cannot read is no city of ours.
      }
    }
    this.#entries = next;
  }

  list(): RegistryEntry[] {
    return [...this.#entries.values()];
  }

  get(name: string): RegistryEntry | undefined {
    return this.#entries.get(name);
  }

  byPath(path: string): RegistryEntry | undefined {
    return this.list().find((e) => e.path === path);
  }

  /**
   * Registers `entry` cluster-wide: takes the city's lease, then writes the key.
   * @throws ConflictError when another supervisor holds the name's lease; what the broker throws (the lease
   *   is given back then).
   */
  async add(entry: RegistryEntry): Promise<void> {
    const epoch = await this.leases.acquire(entry.name);
    if (epoch === undefined) {
      throw new ConflictError(`city ${entry.name} is owned by another supervisor of the cluster`);
    }
    try {
      await this.kv.put(entry.name, JSON.stringify({ name: entry.name, path: entry.path }));
    } catch (err) {
      await this.leases.release(entry.name);
      throw err;
    }
    this.#entries.set(entry.name, { ...entry });
  }

  /** Removes `name` cluster-wide (absent: no-op). The lease stays until the city's owner detaches it. */
  async remove(name: string): Promise<void> {
    await this.kv.delete(name);
    this.#entries.delete(name);
  }
}
