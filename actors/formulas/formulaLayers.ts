/**
 * A city's formula layers (upstream `FormulaLayers.City`), lowest priority first: the `formulas/` directory
 * of each city pack in include order, then the city's `[formulas].dir` (default `<city>/formulas`). A later
 * layer shadows an earlier one by file name. Each layer's orders live in its sibling `orders/` directory;
 * the city's own layer keeps `<city>/orders` whatever `[formulas].dir` says (upstream `cityOrderRoots`).
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { parse } from 'smol-toml';
import { mergeFragments } from '../../machines/config/fragments.ts';
import { strOf, tableOf, type Table } from '../../machines/config/layers.ts';
import { cityTomlPath } from '../cityConfig.ts';
import { readFragments } from '../config/fragments.ts';
import { readPacks } from '../config/packs.ts';

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

/**
 * The city's formula layers, read from its city.toml (include fragments merged) and its packs as the
 * config composition resolves them. A city.toml that is missing or broken leaves the default layer only:
 * the config phase reports it. Read on every call, so an edited city.toml or a new pack is seen at once.
 * Effects: reads city.toml, its fragments and pack.toml files; stats pack directories.
 */
export async function cityFormulaLayers(cityDir: string): Promise<FormulaLayer[]> {
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
  return layers;
}
