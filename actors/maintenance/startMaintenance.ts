import { readFile } from 'node:fs/promises';
import { parse } from 'smol-toml';
import { maintenanceConfigOf, type MaintenanceConfig } from '../../machines/maintenance/schedule.ts';
import { cityTomlPath } from '../runtime/cityPaths.ts';
import type { CityServiceFactory } from '../runtime/cityServices.ts';
import { EventRotation } from './eventRotation.ts';
import { StoreMaintenance } from './storeMaintenance.ts';

declare module '../runtime/cityServices.ts' {
  interface CityServiceRegistry {
    maintenance: CityMaintenance;
  }
}

/** The key of a city's maintenance in `LiveCity.services`. */
export const MAINTENANCE_SERVICE = 'maintenance';

/** A city's store maintenance and event-log rotation. */
export class CityMaintenance {
  #seen: string;

  constructor(
    readonly store: StoreMaintenance,
    readonly rotation: EventRotation,
    private readonly path: string,
    tomlText: string,
  ) {
    this.#seen = tomlText;
  }

  /**
   * Takes a hand edit of city.toml's `[maintenance.dolt]` without a restart (called before each read and
   * on a slow poll). A file that does not parse, or a bad value, keeps the running schedule: /config/validate
   * names the problem. Effects: reads city.toml.
   */
  async refresh(): Promise<void> {
    const text = await readFile(cityTomlPath(this.path), 'utf8').catch(() => '');
    if (text === this.#seen) return;
    this.#seen = text;
    let config: MaintenanceConfig;
    try {
      config = maintenanceConfigOf(parse(text));
    } catch {
      return;
    }
    await this.store.reconfigure(config);
  }
}

/** Options of {@link maintenanceServiceFactory}. */
export interface MaintenanceOptions {
  clock?: () => Date;
  jitter?: () => number;
  /** How often city.toml is looked at for a hand edit (default 2 s; 0: only on reads). */
  pollMs?: number;
}

/**
 * The city service factory (`LiveCity.services.maintenance`): reads `[maintenance.dolt]` from city.toml
 * (a bad interval fails the city's start, naming the key), starts both parts, and follows hand edits.
 */
export function maintenanceServiceFactory(
  options: MaintenanceOptions = {},
): CityServiceFactory<typeof MAINTENANCE_SERVICE> {
  return {
    name: MAINTENANCE_SERVICE,
    phase: 'starting_bead_store',
    start: async (city) => {
      const text = await readFile(cityTomlPath(city.path), 'utf8').catch(() => '');
      const config = maintenanceConfigOf(parse(text));
      const base = {
        name: city.name,
        path: city.path,
        journal: city.journal,
        log: city.log,
        ...(city.logger ? { logger: city.logger } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
      };
      const rotation = await EventRotation.start(base);
      const store = await StoreMaintenance.start({
        ...base,
        config,
        ...(options.jitter ? { jitter: options.jitter } : {}),
      });
      const maintenance = new CityMaintenance(store, rotation, city.path, text);
      const pollMs = options.pollMs ?? 2000;
      const timer =
        pollMs > 0
          ? setInterval(() => {
              maintenance
                .refresh()
                .catch((err: unknown) => city.logger?.warn({ err }, 'city.toml re-read failed'));
            }, pollMs).unref()
          : undefined;
      return {
        service: maintenance,
        stop: async () => {
          clearInterval(timer);
          await store.stop();
          await rotation.stop();
        },
      };
    },
  };
}
