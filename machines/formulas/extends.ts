import type { Formula, FormulaProblem, FormulaStepDef, FormulaVar } from './formula.ts';
import { checkGraph, type ParseResult } from './parseFormula.ts';

/** A parsed formula by name from the same search paths (undefined: no such file). */
export type FormulaLookup = (name: string) => ParseResult | undefined;

/**
 * `formula` with its parents (`extends`) merged in, as upstream's parser resolves them: each parent
 * resolved first (recursively, a cycle is `circular extends detected: a -> b -> a`), applied in list
 * order: a variable the first parent to define it wins, then the child's own replace them; the parents'
 * steps concatenated, a child step with an id already there replaces it in place and a new one is
 * appended. The result keeps the child's name, description (empty stays empty, as upstream), version,
 * type and file. The merged graph is checked as a single formula's (unknown `needs`, duplicates, cycles).
 * A formula without parents is returned as it is. This is a pure function.
 */
export function resolveExtends(formula: Formula, lookup: FormulaLookup): ParseResult {
  const problems: FormulaProblem[] = [];
  const merged = resolve(formula, lookup, [], problems);
  return merged ? { ok: true, formula: merged } : { ok: false, problems };
}

function resolve(
  formula: Formula,
  lookup: FormulaLookup,
  chain: readonly string[],
  problems: FormulaProblem[],
): Formula | undefined {
  const parents = formula.extends ?? [];
  if (parents.length === 0) return formula;
  const here = [...chain, formula.name];
  const line = formula.extendsLine ?? 1;
  const fail = (message: string) => {
    problems.push({ file: formula.file, line, field: 'extends', message });
    return undefined;
  };
  const vars = new Map<string, FormulaVar>();
  let steps: FormulaStepDef[] = [];
  for (const name of parents) {
    if (here.includes(name)) return fail(`circular extends detected: ${[...here, name].join(' -> ')}`);
    const found = lookup(name);
    if (!found) return fail(`extends ${name}: formula ${JSON.stringify(name)} not found in search paths`);
    if (!found.ok) {
      problems.push(...found.problems);
      return fail(`extends ${name}: the parent does not parse`);
    }
    const parent = resolve(found.formula, lookup, here, problems);
    if (!parent) return undefined;
    for (const v of parent.vars) if (!vars.has(v.name)) vars.set(v.name, v);
    steps = [...steps, ...parent.steps];
  }
  for (const v of formula.vars) vars.set(v.name, v);
  for (const step of formula.steps) {
    const at = steps.findIndex((s) => s.id === step.id);
    if (at >= 0) steps[at] = step;
    else steps.push(step);
  }
  const { extends: _parents, extendsLine: _line, ...own } = formula;
  const result: Formula = {
    ...own,
    vars: [...vars.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    steps,
  };
  const before = problems.length;
  checkGraph(steps, (l, field, message) => problems.push({ file: formula.file, line: l, field, message }));
  return problems.length > before ? undefined : result;
}
