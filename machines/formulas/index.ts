/** The formulas family's face: what other families may use of it. */
export { type Recipe } from './compile.ts';
export { type CookOptions, type CookResult, WorkflowKey, cookDecider } from './cook.ts';
export { type FormulaProblem } from './formula.ts';
export { type WorkflowScope, formulaFeed } from './workflowView.ts';
