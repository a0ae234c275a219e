import type {
  FormulaDetail,
  FormulaPreviewEdge,
  FormulaStep,
  FormulaVarDef,
} from '../../schemas/formulas.ts';
import type { Formula } from './formula.ts';
import type { Recipe } from './compile.ts';

/** A variable as the wire shows it (`type` defaults to `string`). This is a pure function. */
export function varDefOf(v: Formula['vars'][number]): FormulaVarDef {
  const def: FormulaVarDef = { name: v.name, type: v.type || 'string' };
  if (v.description) def.description = v.description;
  if (v.default !== undefined) def.default = v.default;
  if (v.required) def.required = true;
  if (v.enum) def.enum = v.enum;
  if (v.pattern) def.pattern = v.pattern;
  return def;
}

/** Control kinds the preview leaves out (upstream `includeFormulaPreviewStep`): a retry's spec bead, … */
const HIDDEN_KINDS = new Set(['scope-check', 'workflow-finalize', 'spec']);

/**
 * The detail of a formula compiled to `recipe`: its steps, the edges between them (`from` the
 * prerequisite, `to` the dependent, kind `blocks`) and the preview graph of the beads a cook would create
 * (the root and control beads left out, as upstream, with the edges that touch them). Nothing is
 * written. This is a pure function.
 */
export function formulaDetail(formula: Formula, recipe: Recipe): FormulaDetail {
  const shown = recipe.steps.filter((s) => !HIDDEN_KINDS.has((s.metadata['gc.kind'] ?? '').trim()));
  const keys = new Set(shown.map((s) => s.key));
  const edges: FormulaPreviewEdge[] = shown.flatMap((s) =>
    s.needs.filter((need) => keys.has(need)).map((need) => ({ from: need, to: s.key, kind: 'blocks' })),
  );
  const steps: FormulaStep[] = shown.map((s) => {
    const kind = s.metadata['gc.kind'] ?? s.type;
    const step: FormulaStep = { id: s.key, title: s.title, kind, type: s.type };
    if (s.assignee) step.assignee = s.assignee;
    if (s.labels.length > 0) step.labels = s.labels;
    if (Object.keys(s.metadata).length > 0) step.metadata = s.metadata;
    return step;
  });
  return {
    name: formula.name,
    description: formula.description,
    steps,
    deps: edges,
    var_defs: formula.vars.map(varDefOf),
    preview: {
      nodes: steps.map((s) => {
        const scope = s.metadata?.['gc.scope_ref']?.trim();
        return { id: s.id, kind: s.kind, title: s.title, ...(scope ? { scope_ref: scope } : {}) };
      }),
      edges,
    },
  };
}
