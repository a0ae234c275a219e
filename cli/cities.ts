import type { ApiClient } from './api.ts';

/** One entry of `GET /v0/cities` (upstream's CityInfo). */
export interface CityInfo {
  name: string;
  path: string;
  running: boolean;
  status?: string;
  error?: string;
  phases_completed?: string[] | null;
}

/** Fetches the registered cities. Throws `ApiError`/`TransportError`. */
export async function listCities(client: ApiClient): Promise<CityInfo[]> {
  const { body } = await client.getJson<{ items?: CityInfo[] | null }>('/v0/cities');
  return body.items ?? [];
}
