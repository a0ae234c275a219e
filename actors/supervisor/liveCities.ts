import type { CityServiceMap } from '../runtime/cityServices.ts';
import type { Journal } from '../runtime/journal/journal.ts';
import { SUPERVISOR_LOG } from '../runtime/journal/journal.ts';
import { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';

/**
 * A city as the HTTP layer may see it: its log (for event routes) and whether it is running (typed
 * per-city routes answer 404 until it is). `services` holds per-city read models started by the
 * reconciler's phases (the bead store, …), keyed by service name.
 */
export interface LiveCity {
  readonly name: string;
  readonly path: string;
  readonly journal: Journal;
  /** The one writer of that log; whatever a route records goes through it. */
  readonly log: LogRuntime;
  readonly running: boolean;
  readonly services: CityServiceMap;
}

/** A city to attach: a test or tool that gives only its journal gets a runtime of its own for it. */
export type LiveCityInput = Omit<LiveCity, 'log'> & { readonly log?: LogRuntime };

/** How long after the last city leaves the supervisor stream still answers (as upstream's grace). */
export const UNREGISTER_GRACE_MS = 120_000;

export type LiveCityChange =
  | { kind: 'attached'; city: LiveCity }
  | { kind: 'updated'; city: LiveCity }
  | { kind: 'detached'; city: LiveCity };

/**
 * The in-memory read model of the cities whose logs are open: running cities and transient ones
 * (starting, failed, being unregistered). The supervisor writes it; HTTP routes and the supervisor event
 * stream read it and listen for attach/detach. It does no I/O.
 */
export class LiveCities {
  readonly #cities = new Map<string, LiveCity>();
  readonly #listeners = new Set<(change: LiveCityChange) => void>();
  #lastDetachedAt: number | undefined;

  constructor(readonly supervisorLog: Journal) {}

  /** Adds or replaces a city; listeners hear `attached` (new name) or `updated`. */
  set(input: LiveCityInput): void {
    const city: LiveCity = { ...input, log: input.log ?? new LogRuntime(input.journal) };
    const existed = this.#cities.has(city.name);
    this.#cities.set(city.name, city);
    this.#emit({ kind: existed ? 'updated' : 'attached', city });
  }

  /** Merges `patch` into a city that is present; no-op when absent. */
  update(name: string, patch: Partial<Omit<LiveCity, 'name'>>): void {
    const city = this.#cities.get(name);
    if (city) this.set({ ...city, ...patch });
  }

  remove(name: string, now = Date.now()): void {
    const city = this.#cities.get(name);
    if (!city) return;
    this.#cities.delete(name);
    this.#lastDetachedAt = now;
    this.#emit({ kind: 'detached', city });
  }

  /**
   * Whether the supervisor event stream has a provider: a city is attached, or one left within `graceMs`.
   * The grace (upstream keeps recently unregistered cities for two minutes) lets a client that got a 202
   * for the last city's unregister still open the stream from its `event_cursor` and see the terminal event.
   */
  hasProviders(graceMs = UNREGISTER_GRACE_MS, now = Date.now()): boolean {
    if (this.#cities.size > 0) return true;
    return this.#lastDetachedAt !== undefined && now - this.#lastDetachedAt < graceMs;
  }

  get(name: string): LiveCity | undefined {
    return this.#cities.get(name);
  }

  /** The city only when it is running: what every typed per-city route serves. */
  running(name: string): LiveCity | undefined {
    const city = this.#cities.get(name);
    return city?.running ? city : undefined;
  }

  list(): LiveCity[] {
    return [...this.#cities.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Every log in the supervisor mux now, `__supervisor__` included, keyed by cursor name. */
  logs(): Map<string, Journal> {
    const logs = new Map<string, Journal>([[SUPERVISOR_LOG, this.supervisorLog]]);
    for (const city of this.#cities.values()) logs.set(city.name, city.journal);
    return logs;
  }

  /** Listens for attach/update/detach; returns the function that stops listening. */
  onChange(listener: (change: LiveCityChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  #emit(change: LiveCityChange): void {
    for (const listener of this.#listeners) listener(change);
  }
}
