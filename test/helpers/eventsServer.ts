import type { Test } from 'tap';
import type { SupervisorConfig } from '../../actors/supervisor/supervisorConfig.ts';
import { SUPERVISOR_LOG, type Journal } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { LiveCities } from '../../actors/supervisor/liveCities.ts';
import type { App } from '../../http/app.ts';
import type { AppDeps } from '../../http/deps.ts';
import { streamRegistry, type StreamRegistry } from '../../http/sse/registry.ts';
import { memoryApp } from './app.ts';

/** An app listening on a real loopback socket, with the live cities the event routes serve from. */
export interface EventsServer {
  app: App;
  deps: AppDeps;
  cities: LiveCities;
  /** `http://127.0.0.1:<port>` */
  base: string;
  streams: StreamRegistry;
  /** Puts a city into LiveCities (running unless told otherwise) over `journal` (default: a new memory log). */
  addCity(name: string, journal?: Journal, running?: boolean): Journal;
}

/**
 * Starts the app on 127.0.0.1:0 over `supervisorLog` (default: a memory log) and registers `t.teardown`
 * to close it. `heartbeatMs` defaults to 60 s so heartbeats appear only in tests that ask for them.
 */
export async function eventsServer(
  t: Test,
  options: { heartbeatMs?: number; supervisorLog?: Journal } = {},
): Promise<EventsServer> {
  const cities = new LiveCities(options.supervisorLog ?? new MemoryJournal(SUPERVISOR_LOG));
  // memoryApp merges a partial config over the defaults; its parameter type asks for a whole one.
  const config = { heartbeatMs: options.heartbeatMs ?? 60_000 } as SupervisorConfig;
  const { app, deps } = await memoryApp({ cities, config });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  t.teardown(() => app.close());
  return {
    app,
    deps,
    cities,
    base: address.replace('localhost', '127.0.0.1'),
    streams: streamRegistry(deps),
    addCity(name, journal = new MemoryJournal(name), running = true) {
      cities.set({ name, path: `/cities/${name}`, journal, running, services: {} });
      return journal;
    },
  };
}

/** Resolves once `predicate` holds, checking every 5 ms; rejects after `timeoutMs`. */
export async function until(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
