/**
 * The variables a sling instantiates a formula with (upstream `BuildSlingFormulaVars`): the caller's,
 * then, where the caller gave none of that name, `issue` = the bead the formula is attached to,
 * `base_branch` for the polecat formulas (`mol-polecat-*`, `mol-scoped-work`) and `target_branch` for
 * `mol-refinery-patrol`, both the rig's default branch. Empty values are not added. Pure.
 */
export function slingFormulaVars(
  formula: string,
  bead: string | undefined,
  vars: Readonly<Record<string, string>> | undefined,
  defaultBranch: string,
): Record<string, string> {
  const out: Record<string, string> = { ...vars };
  const add = (key: string, value: string | undefined) => {
    if (value && !(key in out)) out[key] = value;
  };
  add('issue', bead);
  if (usesBaseBranch(formula)) add('base_branch', defaultBranch);
  if (formula === 'mol-refinery-patrol') add('target_branch', defaultBranch);
  return out;
}

/** Upstream `SlingFormulaUsesBaseBranch`. */
export const usesBaseBranch = (formula: string): boolean =>
  formula.startsWith('mol-polecat-') || formula === 'mol-scoped-work';
