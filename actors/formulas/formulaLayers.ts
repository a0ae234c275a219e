/**
 * A city's formula layers (upstream `FormulaLayers`), lowest priority first: the `formulas/` directory
 * of each city pack in include order, then the city's `[formulas].dir` (default `<city>/formulas`); a rig
 * adds its own above those: the `formulas/` of each pack it includes (`includes`, then `imports` by
 * binding), then its `formulas_dir`. A later layer shadows an earlier one by file name. Each layer's
 * orders live in its sibling `orders/` directory; the city's own layer keeps `<city>/orders` whatever
 * `[formulas].dir` says (upstream `cityOrderRoots`).
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { parse } from 'smol-toml';
import { mergeFragments } from '../../machines/config/fragments.ts';
import { strOf, tableOf, type Table } from '../../machines/config/layers.ts';
import { cityTomlPath, readFragments, readPacks, readRigPacks } from '../config/index.ts';
import { rigEntries } from '../../machines/formulas/rigs.ts';

/** A directory and how problems show it: relative to the city (`packs/base/formulas`). */
export interface LayerDir {
  path: string;
  label: string;
}

/** One formula layer and the directory its orders are read from. */
export interface FormulaLayer {
  formulas: LayerDir;
  orders: LayerDir;
}

const FORMULAS = 'formulas';
const ORDERS = 'orders';

const dirOf = (cityPath: string, path: string): LayerDir => ({
  path,
  label: relative(cityPath, path).split(sep).join('/') || '.',
});

/** Upstream `citylayout.ResolveFormulasDir`: empty or `.` is the default, a relative path is the city's. */
function localFormulasDir(cityPath: string, configured: string | undefined): string {
  if (!configured || normalize(configured) === '.') return join(cityPath, FORMULAS);
  return isAbsolute(configured) ? configured : join(cityPath, configured);
}

const isDir = (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

/** One rig and the layers it adds above the city's (upstream's rig-exclusive layers). */
export interface RigLayers {
  name: string;
  /** The rig's directory (absolute): where its exec orders run. */
  root: string;
  suspended: boolean;
  layers: FormulaLayer[];
}

/** Every layer of a city: its own, and each rig's above them. */
export interface CityLayers {
  city: FormulaLayer[];
  rigs: RigLayers[];
  /** city.toml's `[orders]` table (include fragments merged), as written: the order scan reads it. */
  orders?: unknown;
}

/**
 * The layers a lookup in `rig` searches (upstream `SearchPaths`): the city's, then that rig's; the
 * city's alone without a rig or for a rig the city does not have. Pure.
 */
export function searchLayers(all: CityLayers, rig?: string): FormulaLayer[] {
  const own = rig === undefined ? undefined : all.rigs.find((r) => r.name === rig);
  return own ? [...all.city, ...own.layers] : all.city;
}

/** The city's formula layers alone (see {@link formulaLayers}). */
export async function cityFormulaLayers(cityDir: string): Promise<FormulaLayer[]> {
  return (await formulaLayers(cityDir)).city;
}

/**
 * The city's and its rigs' formula layers, read from its city.toml (include fragments merged) and its
 * packs as the config composition resolves them. A city.toml that is missing or broken leaves the
 * default layer only: the config phase reports it. Read on every call, so an edited city.toml or a new
 * pack is seen at once. Effects: reads city.toml, its fragments and pack.toml files; stats directories.
 */
export async function formulaLayers(cityDir: string): Promise<CityLayers> {
  const cityPath = resolve(cityDir);
  let root: Table;
  try {
    const raw = parse(await readFile(cityTomlPath(cityPath), 'utf8'));
    root = mergeFragments(raw, (await readFragments(cityPath, raw)).fragments).doc;
  } catch {
    root = {};
  }
  const local = localFormulasDir(cityPath, strOf(tableOf(root.formulas).dir));
  const layers: FormulaLayer[] = [];
  const seen = new Set([local]);
  const { layers: packs } = await readPacks(cityPath, root);
  for (const pack of packs) {
    const packDir = dirname(resolve(cityPath, pack.file));
    const formulas = join(packDir, FORMULAS);
    // The city's own pack.toml defines the city, not a pack layer; upstream takes a pack's layer only
    // when its formulas/ exists.
    if (packDir === cityPath || seen.has(formulas) || !(await isDir(formulas))) continue;
    seen.add(formulas);
    layers.push({ formulas: dirOf(cityPath, formulas), orders: dirOf(cityPath, join(packDir, ORDERS)) });
  }
  layers.push({ formulas: dirOf(cityPath, local), orders: dirOf(cityPath, join(cityPath, ORDERS)) });
  return {
    city: layers,
    rigs: await rigLayers(cityPath, root),
    ...(root.orders === undefined ? {} : { orders: root.orders }),
  };
}

/** The layer of a formula directory: its orders are in the sibling `orders/`. */
const layerOf = (cityPath: string, formulas: string): FormulaLayer => ({
  formulas: dirOf(cityPath, formulas),
  orders: dirOf(cityPath, join(dirname(formulas), ORDERS)),
});

/**
 * Each rig's own layers: the `formulas/` of the packs it includes and imports (those that have one), then
 * its `formulas_dir` (relative to the city, as upstream resolves it). Effects: reads pack.toml files.
 */
async function rigLayers(cityPath: string, root: Table): Promise<RigLayers[]> {
  const { layers: packs } = await readRigPacks(cityPath, root);
  const out: RigLayers[] = [];
  for (const rig of rigEntries(root)) {
    const layers: FormulaLayer[] = [];
    const seen = new Set<string>();
    const add = (formulas: string) => {
      if (seen.has(formulas)) return;
      seen.add(formulas);
      layers.push(layerOf(cityPath, formulas));
    };
    for (const pack of packs.filter((p) => p.rig === rig.name)) {
      const formulas = join(dirname(resolve(cityPath, pack.file)), FORMULAS);
      if (await isDir(formulas)) add(formulas);
    }
    if (rig.formulasDir) add(resolve(cityPath, rig.formulasDir));
    out.push({
      name: rig.name,
      // A rig without a path is a config error (validation names it); its orders run in the city.
      root: rig.path ? resolve(cityPath, rig.path) : cityPath,
      suspended: rig.suspended,
      layers,
    });
  }
  return out;
}
