import { NotFoundError } from '../actors/errors.ts';
import type { LiveCity } from '../actors/liveCities.ts';
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
