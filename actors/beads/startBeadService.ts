import { join } from 'node:path';
import type { CityServiceFactory } from '../runtime/cityServices.ts';
import type { Journal } from '../runtime/journal/journal.ts';
import { defaultLogger, type Logger } from '../runtime/logger.ts';
import { idPrefixFor } from '../../machines/beads/ids.ts';
import { createModel } from '../../machines/beads/model.ts';
import { BeadStore } from './beadStore.ts';
import { BeadCommandRunner, type SnapshotPolicy } from './commandRunner.ts';
import { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import type { RetryPolicy } from '../runtime/logRuntime/retryPolicy.ts';
import { readSnapshot } from './snapshot.ts';

declare module '../runtime/cityServices.ts' {
  interface CityServiceRegistry {
    beads: BeadStore;
  }
}

/** The key of the bead store in `LiveCity.services`. */
export const BEAD_SERVICE = 'beads';

/** Options of {@link startBeadService}; every one has a production default. */
export interface BeadServiceOptions {
  /** Id prefix of the city's beads (default: derived from the city name, see `idPrefixFor`). */
  prefix?: string;
  /** Time source of timestamps and the ready rule (default: the system clock). */
  clock?: () => Date;
  /** Of the log runtime the service creates when it is started without its city's (tests, tools). */
  retry?: RetryPolicy;
  /** Events read per journal `list` while folding (default 10,000), likewise. */
  pageSize?: number;
  /**
   * Told when following the journal or writing a snapshot fails, or a snapshot is set aside (default: a
   * warning through `logger`).
   */
  onError?: (err: unknown) => void;
  /** Where the default `onError` logs (default: the shared default logger). */
  logger?: Logger;
  /**
   * Snapshots of the model beside the city's log (`<path>/.gc/beads.snapshot.jsonl`), so a start folds
   * only the events after the last one. On by default for a city with a path; false turns them off.
   * `every` (default 100,000 events) paces background snapshots, `min` (default 10,000) the one at stop.
   */
  snapshot?: false | Partial<SnapshotPolicy>;
}

/** A started bead service: the store to put in `LiveCity.services.beads`, and how to stop it. */
export interface BeadService {
  service: BeadStore;
  stop(): Promise<void>;
}

/**
 * Starts a city's bead store: restores the model from the city's snapshot when it matches the journal,
 * folds every event after it (all of them without one), then follows the journal. The log alone is
 * the truth: a missing or doubtful snapshot only means a longer fold. Effects: reads the snapshot and the
 * journal; keeps a subscription open until `stop`; writes snapshots (see `snapshot`).
 * @throws UnavailableError when the journal cannot be read.
 *
 * @example
 * const beads = await startBeadService({ name: 'bright-lights', path: dir, journal });
 * cities.set({ ...city, services: { ...city.services, [BEAD_SERVICE]: beads.service } });
 * // later
 * await beads.stop();
 */
export async function startBeadService(
  city: { name: string; path: string; journal: Journal; log?: LogRuntime },
  options: BeadServiceOptions = {},
): Promise<BeadService> {
  const clock = options.clock ?? (() => new Date());
  const logger = options.logger ?? defaultLogger();
  const onError =
    options.onError ?? ((err: unknown) => logger.warn({ err, city: city.name }, 'bead store trouble'));
  const prefix = options.prefix ?? idPrefixFor(city.name);
  const snapshot = snapshotPolicy(city.path, options.snapshot);
  let model = createModel(prefix);
  let anchor;
  if (snapshot) {
    const saved = await readSnapshot(snapshot.file, city.journal, prefix);
    if (saved.model) ({ model, anchor } = saved);
    else if (saved.reason) onError(new Error(`setting aside snapshot ${snapshot.file}: ${saved.reason}`));
  }
  // A city's services share its log runtime; a store started on its own (tests, tools) gets one.
  const own = city.log
    ? undefined
    : new LogRuntime(city.journal, 0, {
        ...(options.retry ? { retry: options.retry } : {}),
        ...(options.pageSize ? { pageSize: options.pageSize } : {}),
        onError,
      });
  const runner = new BeadCommandRunner(city.log ?? own!, model, {
    clock,
    onError,
    ...(snapshot ? { snapshot } : {}),
    ...(anchor ? { anchor } : {}),
  });
  try {
    await runner.start();
  } catch (err) {
    await own?.close();
    throw err;
  }
  const service = new BeadStore(city.name, runner, clock);
  return {
    service,
    stop: async () => {
      await service.stop();
      await own?.close();
    },
  };
}

function snapshotPolicy(path: string, option: BeadServiceOptions['snapshot']): SnapshotPolicy | undefined {
  if (option === false || (!path && !option?.file)) return undefined;
  return {
    file: option?.file ?? join(path, '.gc', 'beads.snapshot.jsonl'),
    every: option?.every ?? 100_000,
    min: option?.min ?? 10_000,
  };
}

/** The city's bead store, started in the `starting_bead_store` phase (`LiveCity.services.beads`). */
export const beadStoreService: CityServiceFactory<typeof BEAD_SERVICE> = {
  name: BEAD_SERVICE,
  phase: 'starting_bead_store',
  start: (city) => startBeadService(city, city.logger ? { logger: city.logger } : {}),
};
