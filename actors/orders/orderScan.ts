/**
 * The order files of a city (upstream `scanAllOrders`): the `orders/` beside each of its formula layers,
 * then each rig's own, with city.toml's `[orders]` table. Effects: reads city.toml, the packs, the
 * directories and the order files.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ConfigProblem } from '../../machines/config/problems.ts';
import { scanOrder, type ParsedOrder } from '../../machines/orders/order.ts';
import {
  cappedTimeoutMs,
  ordersConfigOf,
  overrideFor,
  unmatchedOverrides,
  type OrdersConfig,
} from '../../machines/orders/ordersConfig.ts';
import { scopedOrderName } from '../../machines/orders/scope.ts';
import { cityTomlPath } from '../runtime/cityPaths.ts';
import { formulaLayers, type FormulaLayer, type LayerDir, type RigLayers } from '../formulas/index.ts';

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
  /** `[orders]` problems and deprecated order files, each naming its file and field. */
  problems: ConfigProblem[];
}

/** Where an order file is: absolute, and as problems show it (relative to the city). */
interface Found {
  path: string;
  shown: string;
}

const ORDERS = 'orders';
const ORDER_FILE = 'order.toml';
const LEGACY_FLAT = '.order.toml';

/** A directory's entries (none when it is missing). Effects: reads the directory. */
async function entries(path: string): Promise<{ name: string; dir: boolean }[]> {
  try {
    const list = await readdir(path, { withFileTypes: true });
    return list
      .map((e) => ({ name: e.name, dir: e.isDirectory() }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw err;
  }
}

const deprecated = (file: Found, verb: string, canonical: string): ConfigProblem => ({
  severity: 'warning',
  file: file.shown,
  field: 'order',
  message: `deprecated order path; ${verb} to ${canonical}`,
});

/**
 * The order files of one layer's root by name (upstream `discoverRoot`): `orders/<name>.toml`, else the
 * deprecated `orders/<name>.order.toml`, else `orders/<name>/order.toml`, else the layer's own
 * `formulas/orders/<name>/order.toml`. Each deprecated file read is a warning naming the canonical path.
 * Effects: reads the directories.
 */
async function orderFiles(layer: FormulaLayer, warnings: ConfigProblem[]): Promise<Map<string, Found>> {
  const dir = layer.orders;
  const out = new Map<string, Found>();
  const canonical = (name: string) => `${dir.label === '.' ? '' : `${dir.label}/`}${name}.toml`;
  const at = (base: LayerDir, rel: string): Found => ({
    path: join(base.path, rel),
    shown: base.label === '.' ? rel : `${base.label}/${rel}`,
  });
  const list = await entries(dir.path);
  for (const e of list)
    if (!e.dir && e.name.endsWith('.toml') && !e.name.endsWith(LEGACY_FLAT))
      out.set(e.name.slice(0, -'.toml'.length), at(dir, e.name));
  for (const e of list) {
    const name = e.name.slice(0, -LEGACY_FLAT.length);
    if (e.dir || !e.name.endsWith(LEGACY_FLAT) || out.has(name)) continue;
    const file = at(dir, e.name);
    out.set(name, file);
    warnings.push(deprecated(file, 'rename', canonical(name)));
  }
  const subdirs = async (base: LayerDir, verb: string) => {
    for (const e of await entries(base.path)) {
      if (!e.dir || out.has(e.name)) continue;
      const file = at(base, `${e.name}/${ORDER_FILE}`);
      if (!(await isFile(file.path))) continue;
      out.set(e.name, file);
      warnings.push(deprecated(file, verb, canonical(e.name)));
    }
  };
  await subdirs(dir, 'rename');
  const legacy: LayerDir = {
    path: join(layer.formulas.path, ORDERS),
    label: layer.formulas.label === '.' ? ORDERS : `${layer.formulas.label}/${ORDERS}`,
  };
  if (resolve(legacy.path) !== resolve(dir.path)) await subdirs(legacy, 'move');
  return out;
}

const isFile = (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

/**
 * The order files of a run of layers (lowest first): a later layer's order replaces an earlier one of
 * the same name. Effects: reads the directories and files.
 */
async function layerOrderFiles(
  layers: readonly FormulaLayer[],
  skip: ReadonlySet<string>,
  warnings: ConfigProblem[],
  rig?: string,
): Promise<OrderFile[]> {
  const found = new Map<string, Omit<OrderFile, 'text'>>();
  for (const layer of layers)
    for (const [name, file] of await orderFiles(layer, warnings))
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
  // city.toml's text only tells the line of each override; a missing file has none.
  const text = all.orders === undefined ? '' : await readFile(cityTomlPath(cityPath), 'utf8').catch(() => '');
  const { config, problems } = ordersConfigOf(all.orders, text);
  const files = await layerOrderFiles(all.city, config.skip, problems);
  for (const rig of all.rigs)
    files.push(...(await layerOrderFiles(rig.layers, config.skip, problems, rig.name)));
  return { files, config, rigs: all.rigs, problems };
}

/** One scanned file parsed with its overrides; `key` changes whenever what it was parsed from does. */
export interface ResolvedOrder {
  file: OrderFile;
  scoped: string;
  key: string;
  parsed: ParsedOrder;
}

/**
 * The scan's orders, sorted by scoped name: each file with its `[[orders.overrides]]` on top, the files
 * that say `enabled = false` left out, each effective timeout capped by `max_timeout`; and the scan's
 * problems with an error for each override naming no order. Pure.
 */
export function resolveOrders(scan: OrderScan): { orders: ResolvedOrder[]; problems: ConfigProblem[] } {
  const orders: ResolvedOrder[] = [];
  for (const file of scan.files) {
    const override = overrideFor(scan.config, file.name, file.rig);
    const parsed = scanOrder(file.name, file.shown, file.text, file.rig, override);
    if ('disabled' in parsed) continue;
    if (parsed.ok) parsed.order.timeoutMs = cappedTimeoutMs(parsed.order.timeoutMs, scan.config);
    const key = JSON.stringify([file.shown, file.text, override ?? null, scan.config.maxTimeoutMs ?? null]);
    orders.push({ file, scoped: scopedOrderName(file.name, file.rig), key, parsed });
  }
  orders.sort((a, b) => (a.scoped < b.scoped ? -1 : a.scoped > b.scoped ? 1 : 0));
  const unmatched = unmatchedOverrides(
    scan.config,
    orders.map((o) => o.file),
  );
  return { orders, problems: [...scan.problems, ...unmatched] };
}

/** The problems of a city's orders configuration, for `/config/validate`. */
export async function orderProblems(cityPath: string): Promise<ConfigProblem[]> {
  return resolveOrders(await scanOrders(cityPath)).problems;
}
