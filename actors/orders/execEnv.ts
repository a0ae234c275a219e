/**
 * The environment an exec order's command runs with (upstream `orderExecEnv`), on top of the
 * supervisor’s own. Pure (path arithmetic only, so it lives beside the service that uses it).
 */
import { basename, dirname, join } from 'node:path';

/** Where an exec order runs: the city, or the rig it was read for. */
export interface ExecScope {
  cityPath: string;
  /** The city's bead prefix (`GC_BEADS_PREFIX`). */
  prefix: string;
  rig?: { name: string; root: string };
  /** The order file (absolute): `ORDER_DIR` is its directory. */
  orderFile?: string;
  /** The formula layer the order was read beside (absolute): its parent is the pack directory. */
  formulaLayer?: string;
}

/**
 * `GC_CITY_PATH`; `GC_STORE_ROOT` / `GC_STORE_SCOPE` (the rig's root and `rig` for a rig order, else the
 * city and `city`); `GC_RIG` / `GC_RIG_ROOT` (empty for a city order, so an inherited value does not
 * leak in); `ORDER_DIR`; and, as upstream derives them from the order's formula layer, `PACK_DIR` /
 * `GC_PACK_DIR` (the layer's parent: the pack, or the city for its own layer), `GC_PACK_NAME` (that
 * directory's name) and `GC_PACK_STATE_DIR` (`.gc/runtime/packs/<name>`). The cwd is `GC_STORE_ROOT`.
 * Pure.
 */
export function orderExecEnv(scope: ExecScope): Record<string, string> {
  const root = scope.rig?.root ?? scope.cityPath;
  const env: Record<string, string> = {
    GC_CITY_PATH: scope.cityPath,
    GC_STORE_ROOT: root,
    GC_STORE_SCOPE: scope.rig ? 'rig' : 'city',
    GC_BEADS_PREFIX: scope.prefix,
    GC_RIG: scope.rig?.name ?? '',
    GC_RIG_ROOT: scope.rig?.root ?? '',
  };
  if (scope.orderFile) env.ORDER_DIR = dirname(scope.orderFile);
  if (scope.formulaLayer) {
    const packDir = dirname(scope.formulaLayer);
    env.PACK_DIR = packDir;
    env.GC_PACK_DIR = packDir;
    const name = basename(packDir);
    if (name !== '' && name !== '.') {
      env.GC_PACK_NAME = name;
      env.GC_PACK_STATE_DIR = join(scope.cityPath, '.gc', 'runtime', 'packs', name);
    }
  }
  return env;
}
