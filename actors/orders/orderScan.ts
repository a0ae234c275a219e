/**
 * The order files of a city (upstream `scanAllOrders`): the `orders/` beside each of its formula layers,
 * then each rig's own, with city.toml's `[orders]` table. Effects: reads city.toml, the packs, the
 * directories and the order files.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigProblem } from '../../machines/config/problems.ts';
import { ordersConfigOf, type OrdersConfig } from '../../machines/orders/ordersConfig.ts';
import {
  formulaLayers,
  type FormulaLayer,
  type LayerDir,
  type RigLayers,
} from '../formulas/formulaLayers.ts';

/** One order file found in a layer's `orders/`, with its text. */
export interface OrderFile {
  name: string;
  rig?: string;
  /** Absolute. */
  path: string;
  /** Relative to the city (`packs/base/orders/x.toml`). */
  shown: string;
  /** The formula layer it was read beside. */
  layer: LayerDir;
  text: string;
}

/** A city's order files and what `[orders]` says of them. */
export interface OrderScan {
  /** Lowest layer first, a later layer's order replacing an earlier one of the same name; skips left out. */
  files: OrderFile[];
  config: OrdersConfig;
  rigs: RigLayers[];
  /** `[orders]` problems, each naming its file and field. */
  problems: ConfigProblem[];
}

/**
 * The order files of one `orders/` directory by name: `<name>.toml` beats the legacy `<name>.order.toml`.
 * A missing directory has none. Effects: reads the directory.
 */
async function orderFiles(dir: LayerDir): Promise<Map<string, { path: string; shown: string }>> {
  let entries: string[];
  try {
    entries = (await readdir(dir.path)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw err;
  }
  const out = new Map<string, { path: string; shown: string }>();
  for (const entry of entries) {
    if (!entry.endsWith('.toml')) continue;
    const name = entry.replace(/(\.order)?\.toml$/, '');
    if (out.has(name) && entry.endsWith('.order.toml')) continue;
    out.set(name, { path: join(dir.path, entry), shown: `${dir.label}/${entry}` });
  }
  return out;
}

/**
 * The order files of a run of layers (lowest first): a later layer's order replaces an earlier one of
 * the same name. Effects: reads the directories and files.
 */
async function layerOrderFiles(
  layers: readonly FormulaLayer[],
  skip: ReadonlySet<string>,
  rig?: string,
): Promise<OrderFile[]> {
  const found = new Map<string, Omit<OrderFile, 'text'>>();
  for (const layer of layers)
    for (const [name, file] of await orderFiles(layer.orders))
      found.set(name, { name, ...(rig ? { rig } : {}), ...file, layer: layer.formulas });
  const out: OrderFile[] = [];
  // As upstream, a skipped name goes after the layers have been merged (a skip drops every layer's).
  for (const file of found.values())
    if (!skip.has(file.name)) out.push({ ...file, text: await readFile(file.path, 'utf8') });
  return out;
}

/** Every order file of the city at `cityPath`, its own then each rig's. */
export async function scanOrders(cityPath: string): Promise<OrderScan> {
  const all = await formulaLayers(cityPath);
  const { config, problems } = ordersConfigOf(all.orders);
  const files = await layerOrderFiles(all.city, config.skip);
  for (const rig of all.rigs) files.push(...(await layerOrderFiles(rig.layers, config.skip, rig.name)));
  return { files, config, rigs: all.rigs, problems };
}

/** The problems of a city's orders configuration, for `/config/validate`. */
export async function orderProblems(cityPath: string): Promise<ConfigProblem[]> {
  return (await scanOrders(cityPath)).problems;
}
