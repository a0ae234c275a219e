import { formulaServiceFactory } from '../../actors/formulas/index.ts';
import type { ServedFamily } from '../family.ts';
import { formulaRoutes } from './formulas.ts';
import { workflowRoutes } from './workflows.ts';

/** The formulas family served: the formula layers, and its routes (formulas, workflows). */
export const formulasFamily: ServedFamily = {
  name: 'formulas',
  services: [formulaServiceFactory],
  routes(scope, deps) {
    formulaRoutes(scope, deps);
    workflowRoutes(scope, deps);
  },
};
