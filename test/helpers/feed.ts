import type { Journal, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { LiveCities } from '../../actors/supervisor/liveCities.ts';

/** A stored event of type `type` at `seq`, `ts` seconds after a fixed instant (pre-seeded, so exact). */
export const stored = (seq: number, type: string, second = seq): JournalEvent => ({
  seq,
  type,
  actor: 'tester',
  ts: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
});

/** A memory log holding events of `types`, seq 1.. in order, one second apart unless `seconds` says. */
export const logOf = (name: string, types: string[], seconds?: number[]): MemoryJournal =>
  new MemoryJournal(
    name,
    types.map((type, i) => stored(i + 1, type, seconds?.[i] ?? i + 1)),
  );

/** A draft any journal takes, whatever the catalogue's typing of drafts (custom types are legal on a log). */
export const draft = (type: string): Parameters<Journal['append']>[0] => ({ type, actor: 'tester' });

/** Live cities over `supervisor`, with `cities` attached and running. */
export function citiesOf(supervisor: Journal, cities: Record<string, Journal> = {}): LiveCities {
  const live = new LiveCities(supervisor);
  for (const [name, journal] of Object.entries(cities)) attach(live, name, journal);
  return live;
}

export const attach = (live: LiveCities, name: string, journal: Journal): void =>
  live.set({ name, path: `/cities/${name}`, journal, running: true, services: {} });

/** One delivered item of a feed, as a test sees it. */
export interface Item {
  log: string;
  seq: number;
  type: string;
  cursor: string;
}

/**
 * A sink that records every item and lets a test wait for the n-th one (no sleeps: each delivery checks
 * the waiters).
 */
export class RecordingSink {
  readonly items: Item[] = [];
  readonly #waiters: Array<{ n: number; resolve: () => void }> = [];

  ready(): Promise<void> {
    return Promise.resolve();
  }

  deliver(log: string, event: JournalEvent, cursorAfter: string): void {
    this.items.push({ log, seq: event.seq, type: event.type, cursor: cursorAfter });
    for (const w of [...this.#waiters]) {
      if (this.items.length >= w.n) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  /** Resolves once `n` items have arrived. */
  count(n: number): Promise<void> {
    if (this.items.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }

  of(log: string): Item[] {
    return this.items.filter((i) => i.log === log);
  }
}
