import { constants } from 'node:fs';
import { access, mkdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { renderCityToml, cityTomlPath, type CityConfig } from './cityConfig.ts';
import { ValidationError } from './errors.ts';
import { CITY_NAME } from './registry.ts';

/** A create's target: its absolute path (symlinks of existing parts resolved) and the city's name. */
export interface CityDir {
  path: string;
  name: string;
}

const RUNTIME_DIRS = ['cache', 'runtime', 'system'] as const;
/** Linux's limits on one path component and on a whole path (bytes, terminator included in PATH_MAX). */
const NAME_MAX = 255;
const PATH_MAX = 4096;

const invalidDir = (message: string, dir: string): ValidationError =>
  new ValidationError(message, 'invalid city directory', {
    errors: [{ location: 'body.dir', message, value: dir }],
  });

async function kind(path: string): Promise<'dir' | 'other' | 'missing'> {
  try {
    return (await stat(path)).isDirectory() ? 'dir' : 'other';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ENOTDIR') return 'other';
    throw err;
  }
}

async function writable(path: string): Promise<boolean> {
  try {
    await access(path, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The path with symlinks of its longest existing prefix resolved (the rest may not exist yet). */
async function realpathOfExisting(path: string): Promise<{ real: string; existing: string }> {
  let existing = path;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = await realpath(existing);
      return { real: join(real, ...rest.reverse()), existing };
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return { real: path, existing };
      rest.push(basename(existing));
      existing = parent;
    }
  }
}

/**
 * Resolves a create's `dir`: absolute as given, relative under `home` (never outside it), symlinks of the
 * existing part resolved. The directory must be (or be creatable as) a directory we may write.
 * Effects: stats and realpaths along the path.
 * @throws ValidationError (422 `invalid city directory: …`, `errors[]` at `body.dir`).
 */
export async function resolveCityDir(dir: string, home: string): Promise<CityDir> {
  if (dir.trim() === '') throw invalidDir('dir is required', dir);
  if (dir.includes('\0')) throw invalidDir(`invalid path ${JSON.stringify(dir)}`, dir);
  const joined = isAbsolute(dir) ? resolve(dir) : resolve(home, dir);
  const { real, existing } = await realpathOfExisting(joined);
  if (!isAbsolute(dir)) {
    const realHome = (await realpathOfExisting(resolve(home))).real;
    const rel = relative(realHome, real);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
      throw invalidDir(`dir escapes $HOME: ${JSON.stringify(dir)}`, dir);
    }
  }
  if (real === '/') throw invalidDir(`dir must not be the root directory: ${JSON.stringify(dir)}`, dir);
  // The file system would refuse these only when the scaffold writes (ENAMETOOLONG, a 500): they are the
  // client's mistake, so refuse them here.
  if (
    Buffer.byteLength(real) >= PATH_MAX ||
    real.split('/').some((part) => Buffer.byteLength(part) > NAME_MAX)
  ) {
    throw invalidDir(`dir is too long (at most ${NAME_MAX} bytes per name, ${PATH_MAX - 1} in all)`, dir);
  }
  const k = await kind(existing);
  if (k !== 'dir') throw invalidDir(`not a directory: ${JSON.stringify(existing)}`, dir);
  if (!(await writable(existing)))
    throw invalidDir(`directory is not writable: ${JSON.stringify(existing)}`, dir);
  const name = basename(real);
  if (!CITY_NAME.test(name)) {
    throw invalidDir(`invalid city name ${JSON.stringify(name)}: use letters, digits, '.', '_' or '-'`, dir);
  }
  return { path: real, name };
}

/**
 * True when `path` holds a scaffolded city: `.gc/` with cache, runtime and system, and `.gc/events.jsonl`
 * (a directory with only `city.toml` is not a city yet, as upstream). Effects: stats.
 */
export async function isInitialized(path: string): Promise<boolean> {
  const gc = join(path, '.gc');
  const dirs = await Promise.all([gc, ...RUNTIME_DIRS.map((d) => join(gc, d))].map(kind));
  if (dirs.some((k) => k !== 'dir')) return false;
  return (await kind(join(gc, 'events.jsonl'))) === 'other';
}

/** A scaffold in progress: `createLog` finishes it; `rollback` removes exactly what it created. */
export interface Scaffold {
  /**
   * Creates the empty `.gc/events.jsonl` (the city's log file for the file backend, and the marker that
   * makes the directory an initialized city for every backend). Done last, after the registry write, so
   * a crash in between never leaves an initialized city that no registry knows.
   */
  createLog(): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * Scaffolds a city in `path`: the directory itself when missing, `city.toml` (kept when present), and
 * `.gc/` with cache, runtime and system; `createLog` adds the log file later.
 * Effects: creates directories and files. Throws the file system's error after undoing its own work.
 */
export async function scaffoldCity(
  path: string,
  name: string,
  cfg: Omit<CityConfig, 'agents'>,
): Promise<Scaffold> {
  const created: string[] = [];
  const rollback = async (): Promise<void> => {
    for (const p of created.reverse()) await rm(p, { recursive: true, force: true });
    created.length = 0;
  };
  try {
    const root = await mkdir(path, { recursive: true });
    if (root !== undefined) created.push(root);
    const toml = cityTomlPath(path);
    if ((await kind(toml)) === 'missing') {
      await writeFile(toml, renderCityToml(name, cfg), { flag: 'wx' });
      created.push(toml);
    }
    const gc = join(path, '.gc');
    if ((await kind(gc)) === 'missing') {
      await mkdir(gc);
      created.push(gc);
    }
    for (const d of RUNTIME_DIRS) {
      const p = join(gc, d);
      if ((await kind(p)) === 'missing') {
        await mkdir(p);
        created.push(p);
      }
    }
  } catch (err) {
    await rollback();
    throw err;
  }
  const createLog = async (): Promise<void> => {
    const log = join(path, '.gc', 'events.jsonl');
    if ((await kind(log)) === 'missing') {
      await writeFile(log, '', { flag: 'wx' });
      created.push(log);
    }
  };
  return { createLog, rollback };
}
