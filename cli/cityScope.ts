import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { ApiClient } from './api.ts';
import { listCities } from './cities.ts';
import { CliError } from './errors.ts';

/** Which event log `gc events` reads: one city's, or the supervisor's merged view of all of them. */
export type Scope = { kind: 'city'; city: string } | { kind: 'supervisor' };

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * The nearest directory at or above `start` that is a city (holds `city.toml` and a `.gc/` directory), or
 * undefined. Reads the file system only.
 */
export function findCityRoot(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'city.toml')) && isDir(join(dir, '.gc'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

const canonical = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

/** True when a `--city`/`GC_CITY` value names a directory rather than a registered city name. Pure. */
export const looksLikePath = (value: string): boolean =>
  isAbsolute(value) || value.includes(sep) || value.includes('/') || value === '.' || value === '..';

/** The registered name of the city at `dir` (compared by real path), or undefined. */
async function registeredName(client: ApiClient, dir: string): Promise<string | undefined> {
  const want = canonical(dir);
  const cities = await listCities(client);
  return cities.find((c) => canonical(c.path) === want)?.name;
}

/** What scope resolution reads. */
export interface ScopeInputs {
  /** `--city`: a registered name, or a path to a city directory. */
  flag?: string | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * Resolves the scope: `--city`, else `GC_CITY` (each a name, or a path mapped to its registered name), else
 * the city directory containing `cwd` when the supervisor has it registered (GET /v0/cities lists each
 * city's path), else supervisor scope.
 *
 * Effects: reads the file system; calls GET /v0/cities when a path must be mapped to a name.
 * @throws CliError when an explicit city path is not a registered city.
 */
export async function resolveScope(client: ApiClient, inputs: ScopeInputs): Promise<Scope> {
  const explicit = inputs.flag?.trim() || inputs.env.GC_CITY?.trim();
  if (explicit) {
    if (!looksLikePath(explicit)) return { kind: 'city', city: explicit };
    const dir = resolve(inputs.cwd, explicit);
    const name = await registeredName(client, findCityRoot(dir) ?? dir);
    if (!name) throw new CliError(`no registered city at ${dir}; see "gc cities"`);
    return { kind: 'city', city: name };
  }
  const root = findCityRoot(inputs.cwd);
  if (!root) return { kind: 'supervisor' };
  const name = await registeredName(client, root);
  return name ? { kind: 'city', city: name } : { kind: 'supervisor' };
}
