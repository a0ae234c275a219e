import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Formula, FormulaProblem } from '../../machines/formulas/formula.ts';
import { resolveExtends } from '../../machines/formulas/extends.ts';
import { parseFormula, type ParseResult } from '../../machines/formulas/parseFormula.ts';
import { formulaLayers, searchLayers, type CityLayers, type LayerDir } from './formulaLayers.ts';

/** Canonical `<name>.toml` and legacy `<name>.formula.toml` (upstream's names). */
const LEGACY = '.formula.toml';
const CANONICAL = '.toml';
/** A formula name: one path segment, nothing that walks the file system. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A formula file that did not parse, by name. */
export interface BrokenFormula {
  name: string;
  problems: FormulaProblem[];
}

/** Where a formula is looked up: one formula directory alone (an order's own layer), or a rig's layers. */
export interface FormulaFrom {
  layer?: LayerDir;
  /** Search the city's layers and then this rig's (the city's alone for a rig it does not have). */
  rig?: string;
}

/** What a scan of the formula directories found. */
export interface FormulaScan {
  formulas: Formula[];
  broken: BrokenFormula[];
}

/**
 * A city's formulas, read from its formula layers (lowest priority first; a later layer's file shadows an
 * earlier one's by name) on every call, so an edited file or pack is seen at once. Within a directory
 * `<name>.toml` beats `<name>.formula.toml`. Effects: reads the directories and files; never writes.
 */
export class FormulaLibrary {
  /** The last parse of each file with the text it came from: an unchanged file is not parsed again. */
  readonly #parsed = new Map<string, { text: string; result: ReturnType<typeof parseFormula> }>();
  readonly #dirs: (rig?: string) => Promise<readonly LayerDir[]>;

  /**
   * `dirs`: the layers, or how to find them at each call for a scope (they follow the city's config);
   * `rig` undefined is the city scope.
   */
  constructor(dirs: readonly LayerDir[] | ((rig?: string) => Promise<readonly LayerDir[]>)) {
    this.#dirs = typeof dirs === 'function' ? dirs : () => Promise.resolve(dirs);
  }

  /**
   * The library of a city directory: its packs' `formulas/` directories, then its `[formulas].dir`; a
   * rig's lookups add that rig's packs' and its `formulas_dir` above them.
   */
  static forCity(cityPath: string): FormulaLibrary {
    // Calls under way together (a tick cooking many orders) share one read of the config.
    let reading: Promise<CityLayers> | undefined;
    return new FormulaLibrary(async (rig) => {
      const all = await (reading ??= formulaLayers(cityPath).finally(() => (reading = undefined)));
      return searchLayers(all, rig).map((l) => l.formulas);
    });
  }

  /** Every formula file by name (the later directory wins), parsed; the broken ones apart. */
  async scan(rig?: string): Promise<FormulaScan> {
    const files = await this.#files(rig === undefined ? {} : { rig });
    const formulas: Formula[] = [];
    const broken: BrokenFormula[] = [];
    for (const name of [...files.keys()].sort()) {
      const parsed = await this.#resolved(name, files);
      if (parsed.ok) formulas.push(parsed.formula);
      else broken.push({ name, problems: parsed.problems });
    }
    return { formulas, broken };
  }

  /**
   * The formula `name`: undefined when there is no such file, its problems when it does not parse. With
   * `from.layer` (a formula directory), that directory alone is searched, as upstream compiles an order's
   * formula from the order's own layer; with `from.rig`, the city's layers and that rig's.
   */
  async load(
    name: string,
    from: FormulaFrom = {},
  ): Promise<{ ok: true; formula: Formula } | { ok: false; problems: FormulaProblem[] } | undefined> {
    if (!NAME.test(name)) return undefined;
    const files = await this.#files(from);
    return files.has(name) ? this.#resolved(name, files) : undefined;
  }

  /**
   * The formula `name` of `files` with its parents merged in (`extends`): every formula it extends,
   * directly or not, is read from the same files first, then merged by the pure resolver.
   */
  async #resolved(name: string, files: Map<string, { path: string; shown: string }>): Promise<ParseResult> {
    const first = await this.#read(name, files.get(name)!);
    if (!first.ok || !first.formula.extends) return first;
    const known = new Map<string, ParseResult | undefined>([[name, first]]);
    const pending = [...first.formula.extends];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      if (known.has(next)) continue;
      const file = NAME.test(next) ? files.get(next) : undefined;
      const parsed = file ? await this.#read(next, file) : undefined;
      known.set(next, parsed);
      if (parsed?.ok && parsed.formula.extends) pending.push(...parsed.formula.extends);
    }
    return resolveExtends(first.formula, (n) => known.get(n));
  }

  async #read(name: string, file: { path: string; shown: string }) {
    const text = await readFile(file.path, 'utf8');
    const key = `${name}\0${file.path}`;
    const last = this.#parsed.get(key);
    if (last?.text === text) return last.result;
    const result = parseFormula(name, file.shown, text);
    this.#parsed.set(key, { text, result });
    return result;
  }

  async #files(from: FormulaFrom): Promise<Map<string, { path: string; shown: string }>> {
    const out = new Map<string, { path: string; shown: string; canonical: boolean }>();
    for (const dir of from.layer ? [from.layer] : await this.#dirs(from.rig)) {
      let entries: string[];
      try {
        entries = await readdir(dir.path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const layer = new Map<string, { path: string; shown: string; canonical: boolean }>();
      for (const entry of entries.sort()) {
        const canonical = !entry.endsWith(LEGACY);
        if (!entry.endsWith(CANONICAL)) continue;
        const name = entry.slice(0, -(canonical ? CANONICAL : LEGACY).length);
        if (!NAME.test(name)) continue;
        const seen = layer.get(name);
        if (seen?.canonical) continue;
        layer.set(name, { path: join(dir.path, entry), shown: `${dir.label}/${entry}`, canonical });
      }
      for (const [name, f] of layer) out.set(name, f);
    }
    return out;
  }
}
