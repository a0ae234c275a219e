/**
 * A city's packs on disk: the directories its `workspace.includes` name (local paths), the `[packs.<name>]`
 * sources materialised under `.gc/cache/packs/<name>`, and the city's own `pack.toml` beside city.toml.
 * Each pack is a directory with a `pack.toml` whose `[[agent]]`, `[providers.*]`, `[[service]]` and
 * `[[named_session]]` tables are layered under city.toml.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'smol-toml';
import { strOf, tableOf, tablesOf, type PackLayer, type Table } from '../../machines/config/layers.ts';
import { bindPack, importsOf } from '../../machines/config/imports.ts';
import type { RigPackLayer } from '../../machines/config/rigPacks.ts';
import { isRemoteSource, rebaseAgentPaths } from './packPaths.ts';
import type { ConfigProblem } from '../../machines/config/problems.ts';

const run = promisify(execFile);

/** One pack as GET /packs lists it (upstream PackResponse). */
export interface PackInfo {
  name: string;
  source?: string;
  ref?: string;
  path?: string;
}

/** Where `[packs.<name>]` is materialised. */
export const packCacheDir = (cityDir: string, name: string): string =>
  join(cityDir, '.gc', 'cache', 'packs', name);

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** `[packs.<name>]` tables of a city document. Pure. */
export function packSources(
  doc: Table,
): Array<{ name: string; source?: string; ref?: string; path?: string }> {
  return Object.entries(tableOf(doc.packs)).map(([name, t]) => {
    const table = tableOf(t);
    const out: { name: string; source?: string; ref?: string; path?: string } = { name };
    for (const k of ['source', 'ref', 'path'] as const) if (strOf(table[k])) out[k] = String(table[k]);
    return out;
  });
}

/**
 * Fetches every `[packs.<name>]` not yet in the city's cache: a git source is cloned (and checked out at
 * `ref`), a plain directory copied. Run once when the city starts (the `materializing_packs` phase).
 * Effects: runs git, writes under `.gc/cache/packs/`. @throws Error naming the pack when one cannot be fetched.
 */
export async function materializePacks(cityDir: string, doc: Table): Promise<void> {
  for (const pack of packSources(doc)) {
    if (!pack.source) continue; // reported by validation
    const dest = packCacheDir(cityDir, pack.name);
    if (await exists(dest)) continue;
    await mkdir(join(cityDir, '.gc', 'cache', 'packs'), { recursive: true });
    const source =
      isRemoteSource(pack.source) || isAbsolute(pack.source) ? pack.source : resolve(cityDir, pack.source);
    try {
      if (isRemoteSource(source) || (await exists(join(source, '.git')))) {
        await run('git', ['clone', '--quiet', source, dest], { timeout: 120_000 });
        if (pack.ref) await run('git', ['-C', dest, 'checkout', '--quiet', pack.ref], { timeout: 60_000 });
      } else {
        await cp(source, dest, { recursive: true });
      }
    } catch (err) {
      await rm(dest, { recursive: true, force: true });
      throw new Error(
        `pack ${pack.name}: cannot fetch ${pack.source}: ${(err as Error).message.split('\n')[0]}`,
        {
          cause: err,
        },
      );
    }
  }
}

/** Reads one pack directory's pack.toml as a layer, or a problem naming what is wrong. */
async function readPack(
  cityDir: string,
  dir: string,
  fallbackName: string,
  field: string,
): Promise<PackLayer | ConfigProblem> {
  const file = join(dir, 'pack.toml');
  const rel = relative(cityDir, file) || 'pack.toml';
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { severity: 'error', file: 'city.toml', field, message: `no pack.toml at ${rel}` };
  }
  try {
    const doc = parse(text) as Table;
    return { name: strOf(tableOf(doc.pack).name) ?? fallbackName, file: rel, doc };
  } catch (err) {
    return { severity: 'error', file: rel, field: 'pack', message: (err as Error).message.split('\n')[0]! };
  }
}

/**
 * The pack layers of a city document, in order: `workspace.includes` (local directories), the
 * materialised `[packs.<name>]`, then the city's own `pack.toml` (just under city.toml). A missing or broken
 * pack is a problem, not a failure. Effects: reads files.
 */
export async function readPacks(
  cityDir: string,
  doc: Table,
): Promise<{ layers: PackLayer[]; problems: ConfigProblem[]; packs: PackInfo[] }> {
  const layers: PackLayer[] = [];
  const problems: ConfigProblem[] = [];
  const packs: PackInfo[] = [];
  const add = (got: PackLayer | ConfigProblem): boolean => {
    if ('severity' in got) problems.push(got);
    else layers.push(got);
    return !('severity' in got);
  };
  const includes = tableOf(doc.workspace).includes;
  for (const [i, inc] of (Array.isArray(includes) ? includes : []).entries()) {
    const field = `workspace.includes[${i}]`;
    const layer = await readIncludedPack(cityDir, inc, field, '; use [packs.<name>]', problems);
    if (layer) {
      layers.push(layer);
      packs.push({ name: layer.name, path: inc as string });
    }
  }
  for (const pack of packSources(doc)) {
    const field = `packs.${pack.name}`;
    packs.push(pack);
    if (!pack.source) {
      problems.push({
        severity: 'error',
        file: 'city.toml',
        field: `${field}.source`,
        message: 'source is required',
      });
      continue;
    }
    const root = packCacheDir(cityDir, pack.name);
    if (!(await exists(root))) {
      problems.push({
        severity: 'warning',
        file: 'city.toml',
        field,
        message: 'not materialised yet (packs are fetched when the city starts)',
      });
      continue;
    }
    add(await readPack(cityDir, pack.path ? join(root, pack.path) : root, pack.name, field));
  }
  for (const { binding, spec } of importsOf(doc)) {
    const layer = await readImport(cityDir, `imports.${binding}`, binding, spec, problems);
    if (!layer) continue;
    layers.push(layer);
    packs.push({ name: binding, source: String(spec.source) });
  }
  if (await exists(join(cityDir, 'pack.toml'))) {
    const own = await readPack(cityDir, cityDir, 'city', 'pack');
    if (add(own)) packs.push({ name: (own as PackLayer).name, path: '.' });
  }
  return { layers, problems, packs };
}

/**
 * The packs each `[[rigs]]` entry includes (local directories, relative to the city), in rig then include
 * order; their agents' own paths are made relative to the city. A remote include is a warning (not
 * fetched); a pack with `[[service]]` an error (services belong to city-scoped packs, as upstream says).
 * Effects: reads files.
 */
export async function readRigPacks(
  cityDir: string,
  doc: Table,
): Promise<{ layers: RigPackLayer[]; problems: ConfigProblem[] }> {
  const layers: RigPackLayer[] = [];
  const problems: ConfigProblem[] = [];
  for (const [i, rig] of tablesOf(doc.rigs).entries()) {
    const rigName = strOf(rig.name);
    if (!rigName) continue;
    const includes =
      rig.includes === undefined
        ? []
        : Array.isArray(rig.includes)
          ? (rig.includes as unknown[])
          : [rig.includes];
    for (const [j, inc] of includes.entries()) {
      const layer = await readIncludedPack(cityDir, inc, `rigs[${i}].includes[${j}]`, '', problems);
      if (!layer) continue;
      if (tablesOf(layer.doc.service).length > 0)
        problems.push({
          severity: 'error',
          file: layer.file,
          field: 'service',
          message: `[[service]] is only allowed in city-scoped packs (rig ${rigName} includes this one)`,
        });
      rebaseAgentPaths(layer.doc, resolve(cityDir, inc as string), cityDir);
      layers.push({ ...layer, rig: rigName });
    }
    for (const { binding, spec } of importsOf(rig)) {
      const layer = await readImport(cityDir, `rigs[${i}].imports.${binding}`, binding, spec, problems);
      if (layer) layers.push({ ...layer, rig: rigName });
    }
  }
  return { layers, problems };
}

/**
 * One V2 import: the pack at its `source` (a local directory; other sources are not fetched here), its
 * agents bound under `binding`. Undefined, with a problem pushed, when it cannot be read.
 */
async function readImport(
  cityDir: string,
  field: string,
  binding: string,
  spec: Table,
  problems: ConfigProblem[],
): Promise<PackLayer | undefined> {
  const source = strOf(spec.source);
  if (!source) {
    problems.push({
      severity: 'error',
      file: 'city.toml',
      field: `${field}.source`,
      message: 'source is required',
    });
    return undefined;
  }
  if (isRemoteSource(source)) {
    problems.push({
      severity: 'warning',
      file: 'city.toml',
      field,
      message: 'only local import sources are read; remote ones are not fetched',
    });
    return undefined;
  }
  const dir = resolve(cityDir, source);
  const layer = await readPack(cityDir, dir, binding, `${field}.source`);
  if ('severity' in layer) {
    problems.push(layer);
    return undefined;
  }
  rebaseAgentPaths(layer.doc, dir, cityDir);
  return { ...layer, doc: bindPack(layer.doc, binding) };
}

/**
 * The pack an `includes` entry names (a local directory), or undefined with a problem pushed: not a path
 * (error), remote (warning: not fetched; `remoteHint` says what to use instead), or unreadable.
 */
async function readIncludedPack(
  cityDir: string,
  inc: unknown,
  field: string,
  remoteHint: string,
  problems: ConfigProblem[],
): Promise<PackLayer | undefined> {
  if (typeof inc !== 'string' || inc === '') {
    problems.push({ severity: 'error', file: 'city.toml', field, message: 'expected a path' });
    return undefined;
  }
  if (isRemoteSource(inc)) {
    problems.push({
      severity: 'warning',
      file: 'city.toml',
      field,
      message: `remote includes are not fetched${remoteHint}`,
    });
    return undefined;
  }
  const dir = resolve(cityDir, inc);
  const layer = await readPack(cityDir, dir, basename(dir), field);
  if (!('severity' in layer)) return layer;
  problems.push(layer);
  return undefined;
}
