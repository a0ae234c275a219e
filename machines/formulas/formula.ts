/**
 * A formula as read from its file: a named template of work (variables and steps). Upstream's TOML keys
 * (`docs/reference/formula.md`); the subset we compile is documented in docs/compatibility.md.
 */

/** One declared variable (`[vars]`: a bare string is its default). */
export interface FormulaVar {
  name: string;
  type: string;
  description?: string;
  default?: string;
  required?: boolean;
  enum?: string[];
  pattern?: string;
}

/** One `[[steps]]` entry. `line` is where its table starts in the file. */
export interface FormulaStepDef {
  id: string;
  title: string;
  description?: string;
  type?: string;
  priority?: number;
  /** Bead labels (TOML key `tags`, as upstream). */
  tags: string[];
  metadata: Record<string, string>;
  /** Step ids this one waits for (`needs` and `depends_on`, merged). */
  needs: string[];
  assignee?: string;
  /** `{{var}} == value` or `!=`: false drops the step at compile time. */
  condition?: string;
  /** `[steps.retry]`: the step runs as attempts under a retry control bead (upstream's). */
  retry?: RetrySpec;
  line: number;
}

/** `[steps.retry]` (upstream `RetrySpec`): attempts in all, and the outcome once they are spent. */
export interface RetrySpec {
  max_attempts: number;
  on_exhausted?: 'hard_fail' | 'soft_fail';
}

/** A parsed, validated formula. */
export interface Formula {
  /** The file name without `.toml` / `.formula.toml`. */
  name: string;
  description: string;
  /** 1 = legacy molecule; ≥ 2 = graph workflow (`graph.v2`). */
  version: number;
  type: 'workflow' | 'expansion' | 'aspect';
  vars: FormulaVar[];
  steps: FormulaStepDef[];
  /**
   * Parents (`extends`), by name, as written. A loaded formula has them merged in already (the library
   * resolves them); a parsed one still names them and its `needs` are checked only after the merge.
   */
  extends?: string[];
  /** The line of `extends` in the file (for problems). */
  extendsLine?: number;
  /** Where it was read from (relative to the city, for messages). */
  file: string;
}

/** A problem in a formula file: where (file, line, field) and what. */
export interface FormulaProblem {
  file: string;
  line: number;
  field: string;
  message: string;
}

/** `file:line field: message`, the one way a problem is printed. This is a pure function. */
export const describeProblem = (p: FormulaProblem): string => `${p.file}:${p.line} ${p.field}: ${p.message}`;
