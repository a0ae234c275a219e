import { FileJournalBackend } from '../runtime/journal/fileJournal.ts';
import type { Journal, JournalBackend } from '../runtime/journal/journal.ts';
import { MemoryJournalBackend } from '../runtime/journal/memoryJournal.ts';
import { openJournalBackend, type JournalBackendOptions } from '../runtime/journal/openBackend.ts';
import { cityLogFile, type CityActor } from './cityActor.ts';
import type { LiveCities } from './liveCities.ts';

/**
 * Detaches an unregistered city: its writer and log handle are closed (a late write is refused from here
 * on), and a read handle on the same log, opened through `readers` (a second backend on the same store:
 * the first hands back the handle being closed), takes its place in the supervisor mux for the grace
 * (LiveCities.depart). The read handle is there before the city leaves and before the old handle closes,
 * so at no moment is the log missing from the mux or closed in it: the supervisor stream still delivers
 * the city's last events before the request's terminal, which records them as its causes. Without
 * `readers`, or when the log cannot be opened again, the city leaves at once (the terminal is then not
 * held).
 *
 * Effects: closes the city's log runtime and handle, opens a read handle through `readers`; never throws.
 */
export async function detachCity(
  live: LiveCities,
  readers: JournalBackend | undefined,
  city: CityActor,
): Promise<void> {
  await city.log.close().catch(() => undefined);
  const readable = await readers
    ?.open({ name: city.name, file: cityLogFile(city.path) })
    .catch(() => undefined);
  if (readable && readable !== city.journal) live.depart(city.name, readable);
  else live.remove(city.name);
  await city.journal.close().catch(() => undefined);
}

/** A departed city's read handle is closed once its grace ends (LiveCities' `release`). */
export const closeDeparted = (journal: Journal): void => void journal.close().catch(() => undefined);

/**
 * A second backend on the store of `backend`, for departed cities' read handles; undefined when the kind
 * is not one it knows how to open twice. Opens nothing yet (JetStream connects on its first open).
 */
export function readerBackend(
  backend: JournalBackend,
  config: JournalBackendOptions,
): JournalBackend | undefined {
  if (backend instanceof MemoryJournalBackend) return new MemoryJournalBackend(backend.store);
  if (backend.kind === 'file') return new FileJournalBackend();
  if (backend.kind === 'jetstream' && config.natsUrl) return openJournalBackend(config);
  return undefined;
}
