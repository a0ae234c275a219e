import { readFile } from 'node:fs/promises';
import { parse } from 'smol-toml';
import { maintenanceConfigOf } from '../../machines/maintenance/schedule.ts';
import { cityTomlPath } from '../config/cityConfig.ts';
import type { CityServiceFactory } from '../runtime/cityServices.ts';
import { EventRotation } from './eventRotation.ts';
import { StoreMaintenance } from './storeMaintenance.ts';

/** The key of a city's maintenance in `LiveCity.services`. */
export const MAINTENANCE_SERVICE = 'maintenance';

/** A city's store maintenance and event-log rotation. */
export class CityMaintenance {
  constructor(
    readonly store: StoreMaintenance,
    readonly rotation: EventRotation,
  ) {}
}

/** Options of {@link maintenanceServiceFactory}. */
export interface MaintenanceOptions {
  clock?: () => Date;
  jitter?: () => number;
}

/**
 * The city service factory (`LiveCity.services.maintenance`): reads `[maintenance.dolt]` from city.toml
 * (a bad interval fails the city's start, naming the key) and starts both parts.
 */
export function maintenanceServiceFactory(options: MaintenanceOptions = {}): CityServiceFactory {
  return {
    name: MAINTENANCE_SERVICE,
    phase: 'starting_bead_store',
    start: async (city) => {
      const doc = parse(await readFile(cityTomlPath(city.path), 'utf8').catch(() => ''));
      const config = maintenanceConfigOf(doc);
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
      return {
        service: new CityMaintenance(store, rotation),
        stop: async () => {
          await store.stop();
          await rotation.stop();
        },
      };
    },
  };
}
