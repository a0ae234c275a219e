import type { BeadStore } from '../beads/index.ts';
import { NotFoundError, ValidationError } from '../runtime/errors.ts';
import { compileFormula, type Recipe } from '../../machines/formulas/compile.ts';
import {
  cookDecider,
  type CookOptions,
  type CookResult,
  type ExtraEvents,
} from '../../machines/formulas/cook.ts';
import { describeProblem, type Formula, type FormulaProblem } from '../../machines/formulas/formula.ts';
import { formulaDetail, varDefOf } from '../../machines/formulas/preview.ts';
import {
  formulaFeed,
  formulaRuns,
  teardownDecider,
  workflowSnapshot,
  type WorkflowScope,
} from '../../machines/formulas/workflowView.ts';
import type { FormulaDetail, MonitorFeedItem, WorkflowSnapshot } from '../../schemas/formulas.ts';
import type { FormulaFrom, FormulaLibrary } from './formulaLibrary.ts';
import type { LayerDir } from './formulaLayers.ts';

/** What a cook is asked for. */
export interface CookRequest {
  vars?: Record<string, string>;
  target?: string;
  title?: string;
  rootLabels?: string[];
  rootMetadata?: Record<string, string>;
  actor?: string;
  /** Events to append in the same batch (an order's tracking bead and notices). */
  extra?: ExtraEvents;
  /** Search this formula directory alone (an order's own layer), not every layer of the city. */
  layer?: LayerDir;
  /** Search the city's layers and this rig's (unless `layer` is given), and scope the workflow to this rig. */
  rig?: string;
  /** Create the root alone, none of the steps (bd's `mol wisp --root-only`). */
  rootOnly?: boolean;
}

/** What {@link FormulaService.detail} is asked for. */
export interface DetailOptions {
  vars?: Record<string, string>;
  /** Check the variables as a cook does, even when none are given (the preview). */
  strict?: boolean;
  rig?: string;
  /** Add the formula's `version` (ours, opt-in). */
  extras?: boolean;
}

/** Upstream's `formulaVersionString`: the version as a string, `"1"` when not positive. */
export const versionString = (f: Formula): string => String(f.version > 0 ? f.version : 1);

/** The problems of a formula file as a 422 naming each file, line and field. */
export function invalidFormula(name: string, problems: readonly FormulaProblem[]): ValidationError {
  return new ValidationError(
    `formula ${name} is invalid: ${problems.map(describeProblem).join('; ')}`,
    'invalid_formula',
    {
      errors: problems.map((p) => ({ location: `${p.file}:${p.line}`, message: p.message, value: p.field })),
    },
  );
}

/**
 * One city's formulas and workflows: formulas read from its formula layers (packs, then its own), cooked into molecules on
 * its bead store (one decision, one batch), workflows read from and torn down on the store.
 * Every method throws NotFoundError for an unknown formula or workflow and ValidationError (422) for a
 * formula that does not parse or compile, before anything is written.
 */
export class FormulaService {
  constructor(
    readonly city: string,
    readonly library: FormulaLibrary,
    readonly store: BeadStore,
  ) {}

  /**
   * The formula `name`, parsed (from `from.layer` alone when given; `from.rig` adds that rig's layers).
   * @throws NotFoundError, ValidationError (422 `invalid_formula`).
   */
  async formula(name: string, from: FormulaFrom = {}): Promise<Formula> {
    const loaded = await this.library.load(name, from);
    if (!loaded || (loaded.ok && loaded.formula.type !== 'workflow'))
      throw new NotFoundError(`formula ${name} not found`);
    if (!loaded.ok) throw invalidFormula(name, loaded.problems);
    return loaded.formula;
  }

  /**
   * Workflow formulas with their variables and runs (the city's layers, and `rig`'s when given); `partial`
   * when some files do not parse.
   */
  async list(rig?: string, withVersion = false) {
    const scan = await this.library.scan(rig);
    const items = scan.formulas
      .filter((f) => f.type === 'workflow')
      .map((f) => ({
        name: f.name,
        description: f.description,
        var_defs: f.vars.map(varDefOf),
        ...formulaRuns(this.store.model, this.city, f.name, 0, rig ? { kind: 'rig', ref: rig } : undefined),
        ...(withVersion ? { version: versionString(f) } : {}),
      }));
    return { items, partial: scan.broken.length > 0, total: items.length, broken: scan.broken };
  }

  /** Compiles `name` with `vars` (strictly for a cook). @throws as {@link formula}; 422 naming the variable. */
  async compile(
    name: string,
    vars: Record<string, string>,
    strict: boolean,
    title?: string,
    from: FormulaFrom = {},
  ): Promise<{ formula: Formula; recipe: Recipe }> {
    const formula = await this.formula(name, from);
    const compiled = compileFormula(formula, vars, { strict, ...(title ? { title } : {}) });
    if (!compiled.ok) {
      const { kind, variable, message } = compiled.problem;
      throw new ValidationError(message, kind, {
        errors: [{ location: `body.vars.${variable}`, message, value: variable }],
      });
    }
    return { formula, recipe: compiled.recipe };
  }

  /**
   * The detail and preview graph: what a cook would create; nothing is written. Variables are checked as
   * a cook checks them when `strict`, or (upstream's rule for the detail) when some are given.
   */
  async detail(name: string, opts: DetailOptions = {}): Promise<FormulaDetail> {
    const vars = opts.vars ?? {};
    const strict = opts.strict === true || Object.keys(vars).length > 0;
    const from = opts.rig ? { rig: opts.rig } : {};
    const { formula, recipe } = await this.compile(name, vars, strict, undefined, from);
    const detail = formulaDetail(formula, recipe);
    return opts.extras ? { ...detail, version: versionString(formula) } : detail;
  }

  /** Cooks `name` into a molecule: its whole bead graph as one batch. */
  async cook(name: string, req: CookRequest = {}): Promise<CookResult> {
    const from: FormulaFrom = req.layer ? { layer: req.layer } : req.rig ? { rig: req.rig } : {};
    const compiled = await this.compile(name, req.vars ?? {}, true, req.title, from);
    // Root-only still compiles every step, so a missing variable is refused as for a whole cook.
    const recipe = req.rootOnly ? { ...compiled.recipe, steps: [] } : compiled.recipe;
    const options: CookOptions = { city: this.city };
    if (req.rig) options.rig = req.rig;
    if (req.target) options.target = req.target;
    if (req.rootLabels) options.rootLabels = req.rootLabels;
    if (req.rootMetadata) options.rootMetadata = req.rootMetadata;
    return this.store.decide(cookDecider(recipe, options, req.extra), { actor: req.actor ?? 'api' });
  }

  /** Runs of `name` (newest first). @throws NotFoundError for a formula unknown in the scope. */
  async runs(name: string, limit?: number, scope?: WorkflowScope) {
    await this.formula(name, scope?.kind === 'rig' ? { rig: scope.ref } : {});
    return { formula: name, partial: false, ...formulaRuns(this.store.model, this.city, name, limit, scope) };
  }

  /** Every workflow run of `scope` (all when undefined), for the monitor feed. */
  feed(limit?: number, scope?: WorkflowScope): MonitorFeedItem[] {
    return formulaFeed(this.store.model, this.city, limit, scope);
  }

  /**
   * `GET /workflow/{id}`. @throws NotFoundError when `id` is not a workflow root, or not one of `scope`
   * (when given).
   */
  workflow(id: string, scope?: WorkflowScope): WorkflowSnapshot {
    const snap = workflowSnapshot(this.store.model, this.city, id, this.store.index, scope);
    if (!snap) throw new NotFoundError(`workflow ${id} not found`);
    return snap;
  }

  /**
   * Closes (or with `remove`, deletes) every bead of workflow `id` in one batch; one of another `scope`
   * than the one asked about (if any) is not found.
   */
  async teardown(id: string, remove: boolean, scope?: WorkflowScope, actor = 'api') {
    const done = await this.store.decide(teardownDecider(id, remove, this.city, scope), { actor });
    return { workflow_id: id, ...done };
  }
}
