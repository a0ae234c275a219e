import { constants } from 'node:fs';
import { access, mkdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { renderCityToml, cityTomlPath, type CityConfig } from '../config/index.ts';
import { ValidationError } from '../runtime/errors.ts';
import { pseudoFsOf, pseudoRootOf, statfsType, type FsTypeProbe } from '../runtime/pseudoFs.ts';
import { CITY_NAME } from './registry.ts';
import type { StepRunner } from './scaffoldSteps.ts';

/** A create's target: its absolute path (symlinks of existing parts resolved) and the city's name. */
export interface CityDir {
  path: string;
  name: string;
}

const RUNTIME_DIRS = ['cache', 'runtime', 'system'] as const;
/** Linux's limits on one path component and on a whole path (bytes, terminator included in PATH_MAX). */
const NAME_MAX = 255;
const PATH_MAX = 4096;
/**
 * Room kept for what the supervisor writes inside a city: the longest is the bead store's snapshot temp
 * file, `/.gc/beads.snapshot.jsonl.tmp-<pid>-<8 hex>` (at most 46 bytes); `/.gc/events.jsonl` is 17.
 */
const CITY_FILES_RESERVE = 64;
/** The longest city directory (bytes) whose every file still fits in PATH_MAX. */
export const MAX_CITY_DIR_BYTES = PATH_MAX - 1 - CITY_FILES_RESERVE;

const invalidDir = (message: string, dir: string): ValidationError =>
  new ValidationError(message, 'invalid city directory', {
    errors: [{ location: 'body.dir', message, value: dir }],
  });

const onPseudoFs = (root: string, dir: string): ValidationError =>
  invalidDir(`dir is under ${root}, a kernel pseudo-filesystem: ${JSON.stringify(dir)}`, dir);

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
 * existing part resolved. The directory must be (or be creatable as) a directory we may write, on
 * ordinary storage (not under /proc, /sys or /dev, nor on another kernel pseudo-filesystem), and short
 * enough for the files the supervisor puts inside it.
 * Effects: stats, statfs and realpaths along the path.
 * @throws ValidationError (422 `invalid city directory: …`, `errors[]` at `body.dir`).
 */
export async function resolveCityDir(
  dir: string,
  home: string,
  probes: { fsTypeOf?: FsTypeProbe } = {},
): Promise<CityDir> {
  if (dir.trim() === '') throw invalidDir('dir is required', dir);
  if (dir.includes('\0')) throw invalidDir(`invalid path ${JSON.stringify(dir)}`, dir);
  const joined = isAbsolute(dir) ? resolve(dir) : resolve(home, dir);
  // Before any realpath: /proc's magic links lead anywhere, and nothing under these roots is storage.
  const asked = pseudoRootOf(joined);
  if (asked) throw onPseudoFs(asked, dir);
  const { real, existing } = await realpathOfExisting(joined);
  const root = pseudoRootOf(real);
  if (root) throw onPseudoFs(root, dir);
  const fs = await pseudoFsOf(existing, probes.fsTypeOf ?? statfsType);
  if (fs) throw invalidDir(`dir is on a kernel pseudo-filesystem (${fs}): ${JSON.stringify(dir)}`, dir);
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
  // The length counts what the scaffold appends (`<dir>/.gc/events.jsonl`, …), not `dir` alone.
  if (
    Buffer.byteLength(real) > MAX_CITY_DIR_BYTES ||
    real.split('/').some((part) => Buffer.byteLength(part) > NAME_MAX)
  ) {
    throw invalidDir(
      `dir is too long (at most ${NAME_MAX} bytes per name, ${MAX_CITY_DIR_BYTES} in all)`,
      dir,
    );
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
 * `mkdir -p`, one level at a time: Node's recursive mkdir retries forever where a parent's mkdir answers
 * ENOENT (under /proc), pinning a thread. Resolves the topmost directory it created, if any.
 * Effects: stats and creates directories.
 */
async function makeDirs(path: string): Promise<string | undefined> {
  const missing: string[] = [];
  for (let p = path; (await kind(p)) === 'missing' && dirname(p) !== p; p = dirname(p)) missing.push(p);
  let top: string | undefined;
  for (const p of missing.reverse()) {
    try {
      await mkdir(p);
      top ??= p;
    } catch (err) {
      // Made meanwhile by someone else: theirs, not ours to remove.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return top;
}

/**
 * Scaffolds a city in `path`: the directory itself when missing, `city.toml` (kept when present), and
 * `.gc/` with cache, runtime and system; `createLog` adds the log file later. Every file system step, and
 * the rollback, runs through `step` (under the create's deadline).
 * Effects: creates directories and files. Throws the file system's (or the deadline's) error after
 * undoing its own work.
 */
export async function scaffoldCity(
  path: string,
  name: string,
  cfg: Omit<CityConfig, 'agents'>,
  step: StepRunner,
): Promise<Scaffold> {
  const created: string[] = [];
  const rollback = (): Promise<void> =>
    step('undo', async () => {
      for (const p of created.reverse()) await rm(p, { recursive: true, force: true });
      created.length = 0;
    });
  /** Creates `p` with `make` unless something is there already; remembers it for the rollback. */
  const ensure = async (p: string, make: () => Promise<unknown>): Promise<void> => {
    if ((await kind(p)) !== 'missing') return;
    await make();
    created.push(p);
  };
  try {
    const root = await step('create dir', () => makeDirs(path));
    if (root !== undefined) created.push(root);
    const toml = cityTomlPath(path);
    await step('write city.toml', () =>
      ensure(toml, () => writeFile(toml, renderCityToml(name, cfg), { flag: 'wx' })),
    );
    const gc = join(path, '.gc');
    await step('create .gc', async () => {
      await ensure(gc, () => mkdir(gc));
      for (const d of RUNTIME_DIRS) await ensure(join(gc, d), () => mkdir(join(gc, d)));
    });
  } catch (err) {
    await rollback().catch(() => undefined);
    throw err;
  }
  const createLog = (): Promise<void> =>
    step('create log', () => {
      const log = join(path, '.gc', 'events.jsonl');
      return ensure(log, () => writeFile(log, '', { flag: 'wx' }));
    });
  return { createLog, rollback };
}
