import type { CityServiceName, CityServiceRegistry } from '../actors/runtime/cityServices.ts';
import { NotFoundError, UnavailableError } from '../actors/runtime/errors.ts';
import type { LiveCity } from '../actors/supervisor/liveCities.ts';
import type { CityDetailView } from '../actors/supervisor/supervisorApi.ts';
import type { AppDeps } from './deps.ts';

/**
 * The running city a typed per-city route serves. Throws the spec's 404
 * `not_found: city not found or not running: <cityName>` while the city is absent or starting.
 */
export function runningCity(deps: Pick<AppDeps, 'cities'>, cityName: string): LiveCity {
  const city = deps.cities.running(cityName);
  if (!city) throw new NotFoundError(`city not found or not running: ${cityName}`);
  return city;
}

/**
 * One family's service in a running city, typed by the family's registration.
 * @throws NotFoundError (404) as runningCity; UnavailableError (503 `unavailable: <what> is not started for
 *   city <name>`) when the city runs without it (its start-up phase has not run, or failed).
 */
export function cityService<K extends CityServiceName>(
  deps: Pick<AppDeps, 'cities'>,
  cityName: string,
  name: K,
  what: string,
): CityServiceRegistry[K] {
  const service = runningCity(deps, cityName).services[name];
  if (service === undefined) throw new UnavailableError(`${what} is not started for city ${cityName}`);
  return service;
}

/** How the per-city routes document their 404. */
export const NOT_RUNNING =
  'Answers 404 `not_found: city not found or not running: <cityName>` while the city is not running.';

/**
 * A running city's detail view (name, path, uptime, …).
 * @throws NotFoundError (404 `not_found: city not found or not running: <name>`) while it is not running.
 */
export function runningCityDetail(
  deps: Pick<AppDeps, 'cities' | 'supervisor'>,
  name: string,
): CityDetailView {
  runningCity(deps, name);
  const view = deps.supervisor.cityDetail(name);
  // Stopped between the two reads: the same 404 runningCity gives.
  if (!view) throw new NotFoundError(`city not found or not running: ${name}`);
  return view;
}
