import type { Journal } from '../journal/journal.ts';
import { idPrefixFor } from '../../machines/beads/ids.ts';
import { createModel } from '../../machines/beads/model.ts';
import { BeadStore } from './beadStore.ts';
import { BeadCommandRunner } from './commandRunner.ts';
import { RETRY_ON_SEQ_CONFLICT, type RetryPolicy } from './retryPolicy.ts';

/** The key of the bead store in `LiveCity.services`. */
export const BEAD_SERVICE = 'beads';

/** Options of {@link startBeadService}; every one has a production default. */
export interface BeadServiceOptions {
  /** Id prefix of the city's beads (default: derived from the city name, see `idPrefixFor`). */
  prefix?: string;
  /** Time source of timestamps and the ready rule (default: the system clock). */
  clock?: () => Date;
  retry?: RetryPolicy;
  /** Events read per journal `list` while folding (default 10,000). */
  pageSize?: number;
  /** Told when following the journal fails (it is retried); default: a line on stderr. */
  onError?: (err: unknown) => void;
}

/** A started bead service: the store to put in `LiveCity.services.beads`, and how to stop it. */
export interface BeadService {
  service: BeadStore;
  stop(): Promise<void>;
}

const warn = (err: unknown): void =>
  void process.stderr.write(`warning: bead store: following the city journal failed: ${String(err)}\n`);

/**
 * Starts a city's bead store: folds every event of the city journal into a fresh model, then follows
 * the journal. The model is rebuilt from the log alone at every start, so nothing else needs to
 * survive a restart. Effects: reads the whole journal; keeps a subscription open until `stop`.
 * @throws UnavailableError when the journal cannot be read.
 *
 * @example
 * const beads = await startBeadService({ name: 'bright-lights', path: dir, journal });
 * cities.set({ ...city, services: { ...city.services, [BEAD_SERVICE]: beads.service } });
 * // later
 * await beads.stop();
 */
export async function startBeadService(
  city: { name: string; path: string; journal: Journal },
  options: BeadServiceOptions = {},
): Promise<BeadService> {
  const clock = options.clock ?? (() => new Date());
  const model = createModel(options.prefix ?? idPrefixFor(city.name));
  const runner = new BeadCommandRunner(city.journal, model, {
    clock,
    retry: options.retry ?? RETRY_ON_SEQ_CONFLICT,
    pageSize: options.pageSize ?? 10_000,
    onError: options.onError ?? warn,
  });
  await runner.start();
  const service = new BeadStore(city.name, runner, clock);
  return { service, stop: () => service.stop() };
}
