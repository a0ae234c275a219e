/**
 * The pack directories a city's config is composed from, watched (recursively) so an edit to a pack
 * (`pack.toml`, `agents/<name>/agent.toml`, a prompt) reaches the running city as an edit of city.toml
 * does. The set follows the config: each adopted config names the packs it read. Effects: fs watches.
 */
import { watch, type FSWatcher } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { EffectiveConfig } from './effectiveConfig.ts';

/** The root of the pack a source file belongs to (`packs/x/agents/a/agent.toml` → `packs/x`). Pure. */
export function packRootOf(file: string): string {
  const m = /^(.*)\/agents\/[^/]+\/[^/]+$/.exec(file.split(sep).join('/'));
  return m ? m[1]! : dirname(file);
}

/** The pack roots (absolute) a config was composed from; the city's own directory left out. Pure. */
export function packRoots(cityDir: string, config: EffectiveConfig): string[] {
  const files = new Set<string>();
  for (const source of Object.values(config.composed.sources)) if (source.file) files.add(source.file);
  // A rig's own packs too: an agent added to one of them reaches its rig as a city pack's does.
  const roots = new Set<string>([
    ...(config.city.packDirs ?? []),
    ...Object.values(config.city.rigPackDirs ?? {}).flat(),
  ]);
  for (const file of files) {
    const root = resolve(cityDir, packRootOf(file));
    roots.add(root);
  }
  roots.delete(resolve(cityDir));
  return [...roots].sort();
}

export class PackWatch {
  readonly #watchers = new Map<string, FSWatcher>();

  /** `onChange` gets the changed file relative to the city. */
  constructor(
    private readonly cityDir: string,
    private readonly onChange: (file: string) => void,
  ) {}

  /** Watches the packs `config` reads, and no longer the others. */
  follow(config: EffectiveConfig): void {
    const wanted = new Set(packRoots(this.cityDir, config));
    for (const [dir, w] of this.#watchers)
      if (!wanted.has(dir)) {
        w.close();
        this.#watchers.delete(dir);
      }
    for (const dir of wanted) {
      if (this.#watchers.has(dir)) continue;
      try {
        const w = watch(dir, { recursive: true }, (_event, name) => {
          const file = name === null ? dir : isAbsolute(name) ? name : join(dir, name);
          this.onChange(relative(this.cityDir, file).split(sep).join('/'));
        });
        w.on('error', () => undefined);
        w.unref();
        this.#watchers.set(dir, w);
      } catch {
        // A pack directory that is not there (yet): the config reports it.
      }
    }
  }

  close(): void {
    for (const w of this.#watchers.values()) w.close();
    this.#watchers.clear();
  }
}
