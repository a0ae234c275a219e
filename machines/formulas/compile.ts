import type { Formula, FormulaStepDef, FormulaVar } from './formula.ts';
import { topoOrder } from './graph.ts';
import { expandRetries } from './retry.ts';

/** One bead a cook will create, before it has an id. `key` is the namespaced step id. */
export interface RecipeStep {
  key: string;
  stepId: string;
  title: string;
  description?: string;
  type: string;
  priority?: number;
  labels: string[];
  metadata: Record<string, string>;
  assignee?: string;
  /** Keys of the steps this one waits for (`blocks` edges). */
  needs: string[];
}

/** A compiled formula: the root and its steps in dependency order, variables substituted. */
export interface Recipe {
  formula: string;
  version: number;
  root: { key: string; title: string; description?: string; type: string };
  steps: RecipeStep[];
  vars: Record<string, string>;
}

/** Why a formula did not compile with the given variables (a 422 naming it). */
export interface CompileProblem {
  kind: 'missing_variable' | 'invalid_variable' | 'unresolved_placeholder';
  /** The variable at fault. */
  variable: string;
  message: string;
}

export type CompileResult = { ok: true; recipe: Recipe } | { ok: false; problem: CompileProblem };

/** Options of {@link compileFormula}. */
export interface CompileOptions {
  /**
   * Strict (a cook): a required variable without a value, or a placeholder left in a title, refuses the
   * compile. Not strict (a preview without variables): placeholders stay as written.
   */
  strict: boolean;
  /** Root title; else the `title` variable when declared, else the formula name. */
  title?: string;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

/**
 * Compiles `formula` with `input` variables: defaults then the caller's values, checked against each
 * variable's `enum` and `pattern`; steps whose `condition` is false are dropped (with edges to them);
 * titles and descriptions substituted; steps ordered after their prerequisites. Step keys are
 * `<formula>.<id>` as upstream namespaces them. This is a pure function.
 */
export function compileFormula(
  formula: Formula,
  input: Readonly<Record<string, string>>,
  options: CompileOptions,
): CompileResult {
  const vars: Record<string, string> = {};
  for (const v of formula.vars) {
    const value = input[v.name] ?? v.default;
    if (value === undefined) {
      if (v.required && options.strict)
        return fail('missing_variable', v.name, `missing required variable ${v.name}`);
      continue;
    }
    const bad = checkValue(v, value);
    if (bad) return fail('invalid_variable', v.name, bad);
    vars[v.name] = value;
  }
  for (const [k, value] of Object.entries(input)) if (!(k in vars)) vars[k] = value;

  const kept = expandRetries(formula.steps.filter((s) => !s.condition || holds(s.condition, vars)));
  const keptIds = new Set(kept.map((s) => s.id));
  const byId = new Map(kept.map((s) => [s.id, s]));
  const needsOf = (id: string) => (byId.get(id)?.needs ?? []).filter((n) => keptIds.has(n));
  const order = topoOrder(
    kept.map((s) => s.id),
    needsOf,
  );
  const key = (id: string) => `${formula.name}.${id}`;
  const steps: RecipeStep[] = [];
  for (const id of order) {
    const s = byId.get(id)!;
    const title = substitute(s.title, vars);
    if (options.strict) {
      const left = unresolved(title);
      if (left) return fail('unresolved_placeholder', left, `step ${s.id}: title needs variable ${left}`);
    }
    steps.push(recipeStep(s, key(id), title, vars, needsOf(id).map(key)));
  }
  const declared = new Set(formula.vars.map((v) => v.name));
  const rootTitle =
    options.title ?? (declared.has('title') && vars.title !== undefined ? vars.title : formula.name);
  const root: Recipe['root'] = {
    key: formula.name,
    title: rootTitle,
    type: formula.version >= 2 ? 'task' : 'molecule',
  };
  const desc = declared.has('desc') ? vars.desc : formula.description;
  if (desc) root.description = substitute(desc, vars);
  return { ok: true, recipe: { formula: formula.name, version: formula.version, root, steps, vars } };
}

function recipeStep(
  s: FormulaStepDef,
  key: string,
  title: string,
  vars: Record<string, string>,
  needs: string[],
): RecipeStep {
  const step: RecipeStep = {
    key,
    stepId: s.id,
    title,
    type: s.type ?? 'task',
    labels: s.tags.map((t) => substitute(t, vars)),
    metadata: Object.fromEntries(Object.entries(s.metadata).map(([k, v]) => [k, substitute(v, vars)])),
    needs,
  };
  if (s.description) step.description = substitute(s.description, vars);
  if (s.priority !== undefined) step.priority = s.priority;
  if (s.assignee) step.assignee = substitute(s.assignee, vars);
  return step;
}

const fail = (kind: CompileProblem['kind'], variable: string, message: string): CompileResult => ({
  ok: false,
  problem: { kind, variable, message },
});

function checkValue(v: FormulaVar, value: string): string | undefined {
  if (v.enum && v.enum.length > 0 && !v.enum.includes(value))
    return `variable ${v.name}: ${JSON.stringify(value)} is not one of ${v.enum.join(', ')}`;
  if (v.pattern && !new RegExp(v.pattern).test(value))
    return `variable ${v.name}: ${JSON.stringify(value)} does not match /${v.pattern}/`;
  return undefined;
}

/** `{{name}}` replaced by its value; unknown names left as written. This is a pure function. */
export function substitute(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => vars[name] ?? whole);
}

/** The first placeholder left in `text`, if any. */
function unresolved(text: string): string | undefined {
  const m = new RegExp(PLACEHOLDER.source).exec(text);
  return m ? m[1] : undefined;
}

/** Upstream's step conditions: `{{v}} == x` or `{{v}} != x` after substitution; anything else holds. */
function holds(condition: string, vars: Readonly<Record<string, string>>): boolean {
  const m = /^(.*?)\s*(==|!=)\s*(.*)$/.exec(substitute(condition, vars).trim());
  if (!m) return true;
  const unquote = (s: string) => s.trim().replace(/^(["'])(.*)\1$/, '$2');
  const equal = unquote(m[1]!) === unquote(m[3]!);
  return m[2] === '==' ? equal : !equal;
}
