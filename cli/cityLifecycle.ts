import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ApiClient } from './api.ts';
import { listCities } from './cities.ts';
import { discoverApi } from './discover.ts';
import { CliError } from './errors.ts';
import { failureMessage, waitForRequest } from './requestWait.ts';
import type { AsyncAcceptedResponse, CityInfo } from '../schemas/cities.ts';

/** How long the lifecycle commands wait for the supervisor to finish a start or an unregister. */
export const LIFECYCLE_TIMEOUT_MS = 5 * 60_000;

const canonical = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * The city directory a lifecycle command (`start`, `stop`, `register`, …) is about, as upstream's `[path]`:
 * an explicit path must hold `city.toml`; without one, the nearest directory at or above `--city`/`cwd`
 * that holds it. Reads the file system only.
 * @throws CliError with upstream's messages when there is no city there.
 */
export function cityDirOf(path: string | undefined, cwd: string = process.cwd()): string {
  if (path !== undefined) {
    const dir = canonical(resolve(cwd, path));
    if (!isDir(dir)) throw new CliError(`not a city directory: ${dir} (no such directory)`);
    if (!existsSync(join(dir, 'city.toml'))) {
      throw new CliError(`${dir} is not a city directory (no city.toml found)`);
    }
    return dir;
  }
  for (let dir = canonical(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'city.toml'))) return dir;
    if (dirname(dir) === dir) break;
  }
  throw new CliError('not in a city directory (no city.toml or .gc/ found)');
}

/** The supervisor's client for a lifecycle command (`--api`, `GC_API`, then discovery). @throws CliError */
export async function lifecycleClient(api: string | undefined): Promise<ApiClient> {
  return new ApiClient(await discoverApi(api));
}

/** The registered city whose directory is `dir` (compared by real path), if any. */
export async function registeredAt(client: ApiClient, dir: string): Promise<CityInfo | undefined> {
  const want = canonical(dir);
  return (await listCities(client)).find((c) => canonical(c.path) === want);
}

/**
 * The registered city at `dir`, for commands that need one.
 * @throws CliError `city not registered with supervisor: <dir>` (with the hint to register it).
 */
export async function requireRegistered(client: ApiClient, dir: string): Promise<CityInfo> {
  const city = await registeredAt(client, dir);
  if (!city) throw new CliError(`city not registered with supervisor: ${dir} (see "gc register")`);
  return city;
}

/**
 * Waits for an accepted city operation's terminal event on the supervisor stream.
 * Effects: HTTP requests. @throws CliError with the `request.failed` message, or on time-out.
 */
export async function awaitCityOp(
  client: ApiClient,
  accepted: AsyncAcceptedResponse,
  resultType: string,
  warn: (message: string) => void,
): Promise<void> {
  const signal = AbortSignal.timeout(LIFECYCLE_TIMEOUT_MS);
  let outcome;
  try {
    outcome = await waitForRequest(client, { accepted, resultType, signal, warn });
  } catch (err) {
    if (signal.aborted) throw new CliError(`timed out waiting for ${accepted.request_id}`);
    throw err;
  }
  if (!outcome.ok) throw new CliError(failureMessage(outcome.event));
}

/** `POST /v0/cities/register` for `dir`, then waits until the supervisor started the city. */
export async function registerAndStart(
  client: ApiClient,
  dir: string,
  name: string | undefined,
  warn: (message: string) => void,
): Promise<CityInfo> {
  const { body } = await client.postJson<AsyncAcceptedResponse>('/v0/cities/register', {
    dir,
    ...(name !== undefined ? { name } : {}),
  });
  await awaitCityOp(client, body, 'request.result.city.create', warn);
  const city = await registeredAt(client, dir);
  if (!city) throw new CliError(`the supervisor no longer lists the city at ${dir}`);
  return city;
}

/** `POST /v0/city/{name}/start` unless the city already runs. */
export async function startRegistered(client: ApiClient, city: CityInfo): Promise<void> {
  if (city.running) return;
  await client.postJson(`/v0/city/${encodeURIComponent(city.name)}/start`);
}

/** `POST /v0/city/{name}/stop` unless the city is already stopped. */
export async function stopRegistered(client: ApiClient, city: CityInfo): Promise<void> {
  if (!city.running && city.status === 'stopped') return;
  await client.postJson(`/v0/city/${encodeURIComponent(city.name)}/stop`);
}
