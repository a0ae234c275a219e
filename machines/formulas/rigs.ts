/**
 * The rigs of a city document as the formula layers and the order scheduler need them: name, path,
 * `formulas_dir` and `suspended`, with `[[patches.rigs]]` applied (a patch may move or suspend a rig, as
 * the composed config does). Pure.
 */
import { strOf, tableOf, tablesOf, type Table } from '../config/index.ts';

/** One `[[rigs]]` entry. `path` and `formulasDir` are as written (relative ones are the city's). */
export interface RigEntry {
  name: string;
  path?: string;
  formulasDir?: string;
  suspended: boolean;
}

/** The named `[[rigs]]` of `doc` in file order, each with its `[[patches.rigs]]` applied. Pure. */
export function rigEntries(doc: Table): RigEntry[] {
  const patches = tablesOf(tableOf(doc.patches).rigs);
  const out: RigEntry[] = [];
  for (const rig of tablesOf(doc.rigs)) {
    const name = strOf(rig.name);
    if (!name) continue;
    const merged: Table = { ...rig };
    for (const p of patches) if (strOf(p.name) === name) Object.assign(merged, p);
    const entry: RigEntry = { name, suspended: merged.suspended === true };
    const path = strOf(merged.path);
    const formulasDir = strOf(merged.formulas_dir);
    if (path) entry.path = path;
    if (formulasDir) entry.formulasDir = formulasDir;
    out.push(entry);
  }
  return out;
}
