import { parse, TomlError } from 'smol-toml';
import { findCycle } from './graph.ts';
import type { Formula, FormulaProblem, FormulaStepDef, FormulaVar, RetrySpec } from './formula.ts';
import { SourceLines } from './sourceLines.ts';

/** Keys upstream has that we do not compile yet: refused by name rather than silently ignored. */
const UNSUPPORTED_TOP = ['compose', 'template', 'advice', 'pointcuts'];
const UNSUPPORTED_STEP = [
  'children',
  'loop',
  'gate',
  'on_complete',
  'ralph',
  'expand',
  'expand_vars',
  'waits_for',
  'description_file',
];
const TOP_KEYS = new Set([
  'formula',
  'description',
  'version',
  'type',
  'vars',
  'steps',
  'phase',
  'pour',
  'extends',
]);
const STEP_KEYS = new Set([
  'id',
  'title',
  'description',
  'notes',
  'type',
  'priority',
  'tags',
  'metadata',
  'needs',
  'depends_on',
  'assignee',
  'condition',
  'retry',
]);
/** Step keys upstream refuses next to `retry` (`validateRetry`). */
const NOT_WITH_RETRY = ['ralph', 'loop', 'on_complete', 'gate', 'expand', 'children'];
const ON_EXHAUSTED = new Set(['hard_fail', 'soft_fail']);
const VAR_KEYS = new Set(['description', 'default', 'required', 'enum', 'pattern', 'type']);
const STEP_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const FORMULA_TYPES = new Set(['workflow', 'expansion', 'aspect']);

export type ParseResult = { ok: true; formula: Formula } | { ok: false; problems: FormulaProblem[] };

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * Parses and validates one formula file: TOML syntax, upstream's keys and their types, unique step ids,
 * `needs` naming existing steps, no dependency cycle. Every problem names the file, line and field.
 * This is a pure function.
 * @example parseFormula('mol-review', 'formulas/mol-review.toml', text)
 */
export function parseFormula(name: string, file: string, text: string): ParseResult {
  let doc: Table;
  try {
    doc = parse(text);
  } catch (err) {
    const line = err instanceof TomlError ? err.line : 1;
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    return { ok: false, problems: [{ file, line, field: '(syntax)', message }] };
  }
  const src = new SourceLines(text);
  const problems: FormulaProblem[] = [];
  const at = (line: number, field: string, message: string) => problems.push({ file, line, field, message });

  for (const key of Object.keys(doc)) {
    if (UNSUPPORTED_TOP.includes(key)) at(src.key(key), key, 'not supported by this control plane yet');
    else if (!TOP_KEYS.has(key)) at(src.key(key), key, 'unknown field');
  }
  const description = doc.description ?? '';
  if (typeof description !== 'string') at(src.key('description'), 'description', 'must be a string');
  const version = doc.version ?? 1;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0)
    at(src.key('version'), 'version', 'must be a non-negative integer');
  const type = doc.type ?? 'workflow';
  if (typeof type !== 'string' || !FORMULA_TYPES.has(type))
    at(src.key('type'), 'type', 'must be one of workflow, expansion, aspect');

  const parents = doc.extends ?? [];
  if (!isStringArray(parents) || parents.some((p) => p === ''))
    at(src.key('extends'), 'extends', 'must be an array of formula names');
  const vars = parseVars(doc.vars, src, at);
  const steps = parseSteps(doc.steps, src, at);
  // A formula that extends others may name their steps in `needs`: its graph is checked once merged.
  const extending = isStringArray(parents) && parents.length > 0;
  if (problems.length === 0 && !extending) checkGraph(steps, at);
  if (problems.length > 0) return { ok: false, problems };
  const formula: Formula = {
    name,
    description: description as string,
    version: version as number,
    type: type as Formula['type'],
    vars,
    steps,
    file,
  };
  if (extending) Object.assign(formula, { extends: parents, extendsLine: src.key('extends') });
  return { ok: true, formula };
}

export type At = (line: number, field: string, message: string) => void;

function parseVars(raw: unknown, src: SourceLines, at: At): FormulaVar[] {
  if (raw === undefined) return [];
  if (!isTable(raw)) {
    at(src.key('vars'), 'vars', 'must be a table');
    return [];
  }
  const vars: FormulaVar[] = [];
  for (const [name, value] of Object.entries(raw)) {
    const line = src.varLine(name);
    const field = `vars.${name}`;
    if (typeof value === 'string') {
      vars.push({ name, type: 'string', default: value });
      continue;
    }
    if (!isTable(value)) {
      at(line, field, 'must be a string (its default) or a table');
      continue;
    }
    const v: FormulaVar = { name, type: 'string' };
    for (const [k, x] of Object.entries(value)) {
      if (!VAR_KEYS.has(k)) at(line, `${field}.${k}`, 'unknown field');
      else if (k === 'required') {
        if (typeof x === 'boolean') v.required = x;
        else at(line, `${field}.required`, 'must be a boolean');
      } else if (k === 'enum') {
        if (isStringArray(x)) v.enum = x;
        else at(line, `${field}.enum`, 'must be an array of strings');
      } else if (k === 'default') {
        if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') v.default = String(x);
        else at(line, `${field}.default`, 'must be a string, number or boolean');
      } else if (typeof x !== 'string') at(line, `${field}.${k}`, 'must be a string');
      else if (k === 'pattern') {
        if (validPattern(x)) v.pattern = x;
        else at(line, `${field}.pattern`, 'is not a valid regular expression');
      } else if (k === 'description') v.description = x;
      else v.type = x;
    }
    vars.push(v);
  }
  return vars.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function validPattern(p: string): boolean {
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
}

function parseSteps(raw: unknown, src: SourceLines, at: At): FormulaStepDef[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    at(src.key('steps'), 'steps', 'must be an array of tables ([[steps]])');
    return [];
  }
  const steps: FormulaStepDef[] = [];
  raw.forEach((value: unknown, i) => {
    const line = src.stepLine(i);
    const field = `steps[${i}]`;
    if (!isTable(value)) {
      at(line, field, 'must be a table');
      return;
    }
    const fieldLine = (k: string) => src.stepKey(i, k);
    for (const k of Object.keys(value)) {
      if (UNSUPPORTED_STEP.includes(k))
        at(fieldLine(k), `${field}.${k}`, 'not supported by this control plane yet');
      else if (!STEP_KEYS.has(k)) at(fieldLine(k), `${field}.${k}`, 'unknown field');
    }
    const str = (k: string): string | undefined => {
      const x = value[k];
      if (x === undefined) return undefined;
      if (typeof x === 'string') return x;
      at(fieldLine(k), `${field}.${k}`, 'must be a string');
      return undefined;
    };
    const list = (k: string): string[] => {
      const x = value[k];
      if (x === undefined) return [];
      if (isStringArray(x)) return x;
      at(fieldLine(k), `${field}.${k}`, 'must be an array of strings');
      return [];
    };
    const id = str('id');
    if (id === undefined || id === '') at(line, `${field}.id`, 'is required');
    else if (!STEP_ID.test(id)) at(fieldLine('id'), `${field}.id`, `invalid step id ${JSON.stringify(id)}`);
    const title = str('title');
    const metadata = value.metadata ?? {};
    const meta: Record<string, string> = {};
    if (!isTable(metadata)) at(fieldLine('metadata'), `${field}.metadata`, 'must be a table of strings');
    else
      for (const [k, x] of Object.entries(metadata)) {
        if (typeof x === 'string') meta[k] = x;
        else at(fieldLine('metadata'), `${field}.metadata.${k}`, 'must be a string');
      }
    const priority = value.priority;
    if (
      priority !== undefined &&
      (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 0 || priority > 4)
    )
      at(fieldLine('priority'), `${field}.priority`, 'must be an integer from 0 to 4');
    const description = [str('description'), str('notes')].filter((s) => s).join('\n\n');
    const step: FormulaStepDef = {
      id: id ?? '',
      title: title || id || '',
      tags: list('tags'),
      metadata: meta,
      needs: [...new Set([...list('needs'), ...list('depends_on')])],
      line,
    };
    if (description) step.description = description;
    const type = str('type');
    if (type) step.type = type;
    if (typeof priority === 'number') step.priority = priority;
    const assignee = str('assignee');
    if (assignee) step.assignee = assignee;
    const condition = str('condition');
    if (condition) step.condition = condition;
    if (value.retry !== undefined) {
      const retry = parseRetry(value.retry, fieldLine('retry'), `${field}.retry`, at);
      for (const k of NOT_WITH_RETRY)
        if (k in value) at(fieldLine(k), `${field}.${k}`, `retry cannot be combined with ${k}`);
      if (retry) step.retry = retry;
    }
    steps.push(step);
  });
  return steps;
}

/** `[steps.retry]`: `max_attempts` ≥ 1, `on_exhausted` `hard_fail` or `soft_fail` (upstream's checks). */
function parseRetry(raw: unknown, line: number, field: string, at: At): RetrySpec | undefined {
  if (!isTable(raw)) {
    at(line, field, 'must be a table');
    return undefined;
  }
  let ok = true;
  for (const k of Object.keys(raw))
    if (k !== 'max_attempts' && k !== 'on_exhausted') {
      at(line, `${field}.${k}`, 'unknown field');
      ok = false;
    }
  const max = raw.max_attempts;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
    at(line, `${field}.max_attempts`, 'max_attempts must be >= 1');
    ok = false;
  }
  const onExhausted = raw.on_exhausted;
  if (onExhausted !== undefined && (typeof onExhausted !== 'string' || !ON_EXHAUSTED.has(onExhausted))) {
    at(
      line,
      `${field}.on_exhausted`,
      `unsupported on_exhausted ${JSON.stringify(onExhausted)} (want hard_fail or soft_fail)`,
    );
    ok = false;
  }
  if (!ok) return undefined;
  const spec: RetrySpec = { max_attempts: max as number };
  if (onExhausted !== undefined) spec.on_exhausted = onExhausted as RetrySpec['on_exhausted'];
  return spec;
}

/**
 * Unique ids, `needs` naming steps of this formula, no cycle through `needs`. Exported for the merge of
 * a formula with its parents, whose graph is checked once whole. This is a pure function.
 */
export function checkGraph(steps: readonly FormulaStepDef[], at: At): void {
  const byId = new Map<string, FormulaStepDef>();
  steps.forEach((s, i) => {
    if (byId.has(s.id)) at(s.line, `steps[${i}].id`, `duplicate step id ${JSON.stringify(s.id)}`);
    byId.set(s.id, s);
  });
  steps.forEach((s, i) => {
    for (const need of s.needs) {
      if (!byId.has(need)) at(s.line, `steps[${i}].needs`, `names unknown step ${JSON.stringify(need)}`);
    }
  });
  const cycle = findCycle(
    steps.map((s) => s.id),
    (id) => byId.get(id)?.needs ?? [],
  );
  if (cycle) {
    const first = byId.get(cycle[0]!)!;
    at(first.line, `steps[${steps.indexOf(first)}].needs`, `dependency cycle: ${cycle.join(' -> ')}`);
  }
}
