/** The formulas family's face: what other families and the HTTP layer may use of it. */
export { type FormulaLayer, type LayerDir, type RigLayers, formulaLayers } from './formulaLayers.ts';
export { type FormulaService } from './formulaService.ts';
export { FORMULA_SERVICE, formulaServiceFactory } from './startFormulaService.ts';
