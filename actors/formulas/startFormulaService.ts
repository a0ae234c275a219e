import { BEAD_SERVICE } from '../beads/index.ts';
import type { CityServiceFactory } from '../runtime/cityServices.ts';
import { UnavailableError } from '../runtime/errors.ts';
import { FormulaLibrary } from './formulaLibrary.ts';
import { FormulaService } from './formulaService.ts';
import { RetryController } from './retryController.ts';

declare module '../runtime/cityServices.ts' {
  interface CityServiceRegistry {
    formulas: FormulaService;
  }
}

/** The key of the formulas service in `LiveCity.services`. */
export const FORMULA_SERVICE = 'formulas';

/**
 * The formulas service (`LiveCity.services.formulas`), started in `resolving_formulas` on the city's bead
 * store (molecules are beads), with the city's {@link RetryController} (formula `retry` at run time),
 * which stopping the service stops.
 */
export const formulaServiceFactory: CityServiceFactory<typeof FORMULA_SERVICE> = {
  name: FORMULA_SERVICE,
  phase: 'resolving_formulas',
  start: (city) => {
    const store = city.started?.[BEAD_SERVICE];
    if (!store)
      return Promise.reject(new UnavailableError(`bead store is not started for city ${city.name}`));
    const service = new FormulaService(city.name, FormulaLibrary.forCity(city.path), store);
    const retries = new RetryController(store);
    retries.start();
    return Promise.resolve({ service, stop: () => retries.stop() });
  },
};
