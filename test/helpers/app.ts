import { loadConfig, type SupervisorConfig } from '../../actors/supervisor/supervisorConfig.ts';
import { detachedSupervisor } from '../../actors/supervisor/detachedSupervisor.ts';
import { LiveCities } from '../../actors/supervisor/liveCities.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { buildApp, type App } from '../../http/app.ts';
import type { AppDeps } from '../../http/deps.ts';

/**
 * An app over in-memory journals, for tests of the HTTP layer that need no supervisor actors. Unless a
 * `supervisor` is given, city lifecycle operations answer 501 (no initializer wired) and the city views
 * come from `cities`.
 */
export async function memoryApp(
  overrides: Partial<AppDeps> & { config?: Partial<SupervisorConfig> } = {},
): Promise<{ app: App; deps: AppDeps }> {
  const cities = overrides.cities ?? new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  const deps: AppDeps = {
    readOnly: false,
    ...overrides,
    cities,
    supervisor: overrides.supervisor ?? detachedSupervisor(cities),
    config: { ...loadConfig({ GC_HOME: '/nonexistent-gc-home' }), ...overrides.config },
  };
  const app = await buildApp(deps);
  return { app, deps };
}
