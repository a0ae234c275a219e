/**
 * A city's packs on disk: the directories its `workspace.includes` name (local paths), the `[packs.<name>]`
 * sources materialised under `.gc/cache/packs/<name>`, and the city's own `pack.toml` beside city.toml.
 * Each pack is a directory with a `pack.toml` whose `[[agent]]`, `[providers.*]`, `[[service]]` and
 * `[[named_session]]` tables are layered under city.toml.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, rm, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { strOf, tableOf, tablesOf, type PackLayer, type Table } from '../../machines/config/layers.ts';
import { importsOf } from '../../machines/config/imports.ts';
import { bindExpanded, expandPack, type PackNode } from '../../machines/config/packTree.ts';
import type { RigPackLayer } from '../../machines/config/rigPacks.ts';
import { isRemoteSource } from './packPaths.ts';
import { readPackTree, resolvePackSource, type PackReadContext } from './packTree.ts';
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

/** Makes a path written in a pack in `dir` relative to the city (absolute and `//` paths kept). */
const rebaser =
  (cityDir: string) =>
  (p: string, dir: string): string =>
    isAbsolute(p) || p.startsWith('//') ? p : relative(cityDir, join(dir, p));

/**
 * The layers of one pack reference: every pack it reaches below it (their directories only: formulas,
 * orders, fragments), then the pack itself carrying the whole expansion (agents, named sessions,
 * providers, services), its agents under `binding` when it is an import.
 */
function layersOf(cityDir: string, node: PackNode, binding?: string): PackLayer[] {
  let e = expandPack(node, rebaser(cityDir));
  if (binding) e = bindExpanded(e, binding);
  const below = e.nodes
    .filter((n) => n.dir !== node.dir)
    .map((n): PackLayer => ({ name: n.name, file: n.file, dir: n.dir, doc: { pack: tableOf(n.doc.pack) } }));
  return [
    ...below,
    {
      name: node.name,
      file: node.file,
      dir: node.dir,
      doc: {
        ...node.doc,
        agent: e.agents,
        named_session: e.namedSessions,
        providers: e.providers,
        service: e.services,
      },
      sessionLive: e.sessionLive,
      problems: e.problems,
    },
  ];
}

/** Reads one pack reference as layers, or none (with problems recorded). */
async function packLayers(
  ctx: PackReadContext,
  dir: string,
  ref: { declaredIn: string; field: string; fallbackName: string },
  binding?: string,
): Promise<PackLayer[]> {
  const node = await readPackTree(ctx, dir, ref);
  if (!node) return [];
  const layers = layersOf(ctx.cityDir, node, binding);
  for (const l of layers) ctx.problems.push(...(l.problems ?? []));
  return layers;
}

/**
 * The pack layers of a city document, in order: `workspace.includes` (local directories), the
 * materialised `[packs.<name>]`, the `[imports.*]` (by binding), then the city's own `pack.toml` (just
 * under city.toml) with its `agents/` directories. Each pack brings the packs it reaches, below it. A
 * missing or broken pack is a problem, not a failure. Effects: reads files.
 */
export async function readPacks(
  cityDir: string,
  doc: Table,
  cache: Map<string, PackNode> = new Map(),
): Promise<{ layers: PackLayer[]; problems: ConfigProblem[]; packs: PackInfo[] }> {
  const layers: PackLayer[] = [];
  const problems: ConfigProblem[] = [];
  const ctx: PackReadContext = { cityDir, problems, cache };
  const packs: PackInfo[] = [];
  const includes = tableOf(doc.workspace).includes;
  for (const [i, inc] of (Array.isArray(includes) ? includes : []).entries()) {
    const field = `workspace.includes[${i}]`;
    const dir = includedDir(cityDir, inc, field, '; use [packs.<name>]', problems);
    if (!dir) continue;
    const got = await packLayers(ctx, dir, { declaredIn: 'city.toml', field, fallbackName: basename(dir) });
    if (got.length === 0) continue;
    layers.push(...got);
    packs.push({ name: got[got.length - 1]!.name, path: inc as string });
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
    const dir = pack.path ? join(root, pack.path) : root;
    layers.push(...(await packLayers(ctx, dir, { declaredIn: 'city.toml', field, fallbackName: pack.name })));
  }
  for (const { binding, spec } of importsOf(doc)) {
    const field = `imports.${binding}`;
    const dir = importDir(cityDir, field, spec, problems);
    if (!dir) continue;
    const got = await packLayers(
      ctx,
      dir,
      { declaredIn: 'city.toml', field: `${field}.source`, fallbackName: binding },
      binding,
    );
    if (got.length === 0) continue;
    layers.push(...got);
    packs.push({ name: binding, source: String(spec.source) });
  }
  if (await exists(join(cityDir, 'pack.toml'))) {
    const own = await packLayers(ctx, cityDir, {
      declaredIn: 'city.toml',
      field: 'pack',
      fallbackName: 'city',
    });
    const top = own[own.length - 1];
    if (top) {
      top.cityPack = true;
      layers.push(...own);
      packs.push({ name: top.name, path: '.' });
    }
  }
  return { layers, problems, packs };
}

/**
 * The packs each `[[rigs]]` entry includes or imports (local directories), in rig then include order,
 * each with the packs it reaches. A remote source is a warning (not fetched); a pack with `[[service]]`
 * an error (services belong to city-scoped packs, as upstream says). Effects: reads files.
 */
export async function readRigPacks(
  cityDir: string,
  doc: Table,
  cache: Map<string, PackNode> = new Map(),
): Promise<{ layers: RigPackLayer[]; problems: ConfigProblem[] }> {
  const layers: RigPackLayer[] = [];
  const problems: ConfigProblem[] = [];
  for (const [i, rig] of tablesOf(doc.rigs).entries()) {
    const rigName = strOf(rig.name);
    if (!rigName) continue;
    // Each rig expands on its own (as upstream); the packs read from disk are shared (`cache`).
    const ctx: PackReadContext = { cityDir, problems, cache };
    const includes =
      rig.includes === undefined
        ? []
        : Array.isArray(rig.includes)
          ? (rig.includes as unknown[])
          : [rig.includes];
    const add = (got: PackLayer[]) => {
      const top = got[got.length - 1];
      if (top && tablesOf(top.doc.service).length > 0)
        problems.push({
          severity: 'error',
          file: top.file,
          field: 'service',
          message: `[[service]] is only allowed in city-scoped packs (rig ${rigName} includes this one)`,
        });
      layers.push(...got.map((l) => ({ ...l, rig: rigName })));
    };
    for (const [j, inc] of includes.entries()) {
      const field = `rigs[${i}].includes[${j}]`;
      const dir = includedDir(cityDir, inc, field, '', problems);
      if (dir)
        add(await packLayers(ctx, dir, { declaredIn: 'city.toml', field, fallbackName: basename(dir) }));
    }
    for (const { binding, spec } of importsOf(rig)) {
      const field = `rigs[${i}].imports.${binding}`;
      const dir = importDir(cityDir, field, spec, problems);
      if (dir)
        add(
          await packLayers(
            ctx,
            dir,
            { declaredIn: 'city.toml', field: `${field}.source`, fallbackName: binding },
            binding,
          ),
        );
    }
  }
  return { layers, problems };
}

/** The directory of a V2 import (a local source), or undefined with a problem pushed. */
function importDir(
  cityDir: string,
  field: string,
  spec: Table,
  problems: ConfigProblem[],
): string | undefined {
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
  return resolvePackSource(cityDir, cityDir, source);
}

/**
 * The directory an `includes` entry names (a local directory), or undefined with a problem pushed: not a
 * path (error) or remote (warning: not fetched; `remoteHint` says what to use instead).
 */
function includedDir(
  cityDir: string,
  inc: unknown,
  field: string,
  remoteHint: string,
  problems: ConfigProblem[],
): string | undefined {
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
  return resolvePackSource(cityDir, cityDir, inc);
}
