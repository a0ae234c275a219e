import type { CityInfo, SupervisorCitiesOutputBody } from '../schemas/cities.ts';
import type { ApiClient } from './api.ts';

/** Fetches the registered cities. Throws `ApiError`/`TransportError`. */
export async function listCities(client: ApiClient): Promise<CityInfo[]> {
  const { body } = await client.getJson<Partial<SupervisorCitiesOutputBody>>('/v0/cities');
  return body.items ?? [];
}
