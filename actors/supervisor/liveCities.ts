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

/** `forgotten`: a departed city's log left the supervisor mux (its grace ended, or the city came back). */
export type LiveCityChange =
  | { kind: 'attached'; city: LiveCity }
  | { kind: 'updated'; city: LiveCity }
  | { kind: 'detached'; city: LiveCity }
  | { kind: 'forgotten'; city: LiveCity };

export interface LiveCitiesOptions {
  /** How long a departed city's log stays in the supervisor mux (default {@link UNREGISTER_GRACE_MS}). */
  graceMs?: number;
  /** Told when a departed city's log leaves the mux: its owner closes it. */
  release?: (journal: Journal) => void;
}

interface Departed {
  readonly city: LiveCity;
  readonly timer: NodeJS.Timeout;
}

/**
 * The in-memory read model of the cities whose logs are open: running cities and transient ones
 * (starting, failed, being unregistered). The supervisor writes it; HTTP routes and the supervisor event
 * stream read it and listen for attach/detach. It does no I/O.
 */
export class LiveCities {
  readonly #cities = new Map<string, LiveCity>();
  readonly #listeners = new Set<(change: LiveCityChange) => void>();
  /** Unregistered cities whose logs the supervisor mux still reads, by name. */
  readonly #departed = new Map<string, Departed>();
  readonly #graceMs: number;
  readonly #release: (journal: Journal) => void;
  #lastDetachedAt: number | undefined;

  constructor(
    readonly supervisorLog: Journal,
    options: LiveCitiesOptions = {},
  ) {
    this.#graceMs = options.graceMs ?? UNREGISTER_GRACE_MS;
    this.#release = options.release ?? (() => {});
  }

  /** Adds or replaces a city; listeners hear `attached` (new name) or `updated`. */
  set(input: LiveCityInput): void {
    const city: LiveCity = { ...input, log: input.log ?? new LogRuntime(input.journal) };
    const existed = this.#cities.has(city.name);
    // A city back under a departed name: its live log is the one the mux reads from now on.
    this.#drop(city.name, city.journal);
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
   * An unregistered city leaves (listeners hear `detached`: its own streams end, its routes 404), but
   * `readable`, a read handle on its log, stays in {@link logs} for the grace, as upstream keeps recently
   * unregistered cities in its multiplexer: the supervisor stream then still delivers the city's last
   * events (`controller.stopped`) before the request's terminal that records them as its causes, whether
   * it reads at the head or resumes from any cursor taken within the grace. No-op when absent.
   */
  depart(name: string, readable: Journal, now = Date.now()): void {
    const city = this.#cities.get(name);
    if (!city) return;
    this.#drop(name);
    const timer = setTimeout(() => this.#drop(name), this.#graceMs);
    timer.unref();
    this.#departed.set(name, { city: { ...city, journal: readable, running: false }, timer });
    this.remove(name, now);
  }

  /** Ends a departed city's grace: its log leaves the mux, and is released unless `keep` (it is live again). */
  #drop(name: string, keep?: Journal): void {
    const departed = this.#departed.get(name);
    if (!departed) return;
    clearTimeout(departed.timer);
    this.#departed.delete(name);
    if (departed.city.journal !== keep) this.#release(departed.city.journal);
    if (!keep) this.#emit({ kind: 'forgotten', city: departed.city });
  }

  /** Names of departed cities whose logs are still in the mux (tests watch the grace through it). */
  get departed(): string[] {
    return [...this.#departed.keys()];
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

  /**
   * Every log in the supervisor mux now, keyed by cursor name: `__supervisor__`, every attached city's,
   * and departed cities' within their grace ({@link depart}).
   */
  logs(): Map<string, Journal> {
    const logs = new Map<string, Journal>([[SUPERVISOR_LOG, this.supervisorLog]]);
    for (const { city } of this.#departed.values()) logs.set(city.name, city.journal);
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
