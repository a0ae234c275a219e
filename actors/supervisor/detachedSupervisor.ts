import { NotImplementedError } from '../runtime/errors.ts';
import { systemHostProbe, type HostProbe } from './hostProbe.ts';
import type { LiveCities } from './liveCities.ts';
import { Readiness } from './readiness.ts';
import {
  SUPERVISOR_VERSION,
  type CityDetailView,
  type CityInfoView,
  type SupervisorApi,
} from './supervisorApi.ts';

/**
 * A supervisor with no initializer wired: it serves the cities some test put into `LiveCities` and
 * answers 501 to every lifecycle operation, as upstream does in such configurations. For HTTP tests that
 * need no actors.
 */
export function detachedSupervisor(cities: LiveCities, host: HostProbe = systemHostProbe()): SupervisorApi {
  const startedAt = new Date();
  return {
    startedAt,
    version: SUPERVISOR_VERSION,
    readiness: new Readiness(host),
    listCities: (): CityInfoView[] =>
      cities.list().map((c) => ({
        name: c.name,
        path: c.path,
        running: c.running,
        status: c.running ? 'running' : 'starting_agents',
        phases_completed: null,
      })),
    cityDetail: (name): CityDetailView | undefined => {
      const c = cities.running(name);
      return c && { name, path: c.path, suspended: false, uptime_sec: 0, agent_count: 0, rig_count: 0 };
    },
    createCity: () =>
      Promise.reject(
        new NotImplementedError('city creation is not available in this supervisor (no initializer wired)'),
      ),
    unregisterCity: () =>
      Promise.reject(
        new NotImplementedError('city unregister is not available in this supervisor (no initializer wired)'),
      ),
    stopCity: () =>
      Promise.reject(
        new NotImplementedError('city stop is not available in this supervisor (no initializer wired)'),
      ),
    setSuspended: () =>
      Promise.reject(
        new NotImplementedError('city update is not available in this supervisor (no initializer wired)'),
      ),
    startCity: () =>
      Promise.reject(
        new NotImplementedError('city start is not available in this supervisor (no initializer wired)'),
      ),
    registerCity: () =>
      Promise.reject(
        new NotImplementedError('city register is not available in this supervisor (no initializer wired)'),
      ),
  };
}
