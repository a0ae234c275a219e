import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'smol-toml';
import { writeFileAtomic } from '../runtime/atomicFile.ts';

/** One registered city: its name (the `{cityName}` of the API) and absolute directory. */
export interface RegistryEntry {
  name: string;
  path: string;
}

/** What the supervisor asks of its registry of cities, whichever store holds it (file, or a cluster's KV). */
export interface CityRegistryStore {
  list(): RegistryEntry[];
  get(name: string): RegistryEntry | undefined;
  byPath(path: string): RegistryEntry | undefined;
  add(entry: RegistryEntry): Promise<void>;
  remove(name: string): Promise<void>;
}

/** City names the registry accepts (upstream's effective-name rule). */
export const CITY_NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

/**
 * The supervisor's registry of cities, `$GC_HOME/cities.toml` (`[[cities]] name = …, path = …`, as
 * upstream). Held in memory; every change rewrites the file atomically (temp file + rename), one write at
 * a time (changes that arrive meanwhile share the next write), so concurrent changes never lose each other.
 */
export class CityRegistry implements CityRegistryStore {
  readonly file: string;
  #entries = new Map<string, RegistryEntry>();
  #queued: Array<{
    mutate: (entries: Map<string, RegistryEntry>) => void;
    resolve: () => void;
    reject: (err: unknown) => void;
  }> = [];
  #writing = false;

  private constructor(home: string) {
    this.file = join(home, 'cities.toml');
  }

  /**
   * Loads the registry (an absent file is an empty registry). Entries without a valid name or an absolute
   * path are skipped. Throws on an unreadable or unparsable file.
   */
  static async load(home: string): Promise<CityRegistry> {
    const registry = new CityRegistry(home);
    let text: string | undefined;
    try {
      text = await readFile(registry.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (text !== undefined) {
      const doc = parse(text) as { cities?: unknown };
      for (const raw of Array.isArray(doc.cities) ? doc.cities : []) {
        const { name, path } = (raw ?? {}) as Record<string, unknown>;
        if (
          typeof name === 'string' &&
          CITY_NAME.test(name) &&
          typeof path === 'string' &&
          path.startsWith('/')
        ) {
          registry.#entries.set(name, { name, path });
        }
      }
    }
    return registry;
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

  /** Adds (or replaces) an entry and persists. Throws the write's error; the entry is then not added. */
  add(entry: RegistryEntry): Promise<void> {
    return this.#change((m) => m.set(entry.name, { ...entry }));
  }

  /** Removes an entry (absent: no-op) and persists. Throws the write's error; the entry then stays. */
  remove(name: string): Promise<void> {
    return this.#change((m) => m.delete(name));
  }

  #change(mutate: (entries: Map<string, RegistryEntry>) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queued.push({ mutate, resolve, reject });
      if (!this.#writing) void this.#flush();
    });
  }

  // Group commit: changes queued while a write is in flight go to disk together in the next write.
  async #flush(): Promise<void> {
    this.#writing = true;
    while (this.#queued.length > 0) {
      const batch = this.#queued.splice(0);
      const next = new Map(this.#entries);
      for (const change of batch) change.mutate(next);
      const cities = [...next.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      try {
        await mkdir(dirname(this.file), { recursive: true });
        await writeFileAtomic(this.file, stringify({ cities }) + '\n');
        this.#entries = next;
        for (const change of batch) change.resolve();
      } catch (err) {
        for (const change of batch) change.reject(err);
      }
    }
    this.#writing = false;
  }
}
