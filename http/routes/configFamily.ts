import { linkedConfigService } from '../../actors/supervisor/linkedConfigService.ts';
import type { ServedFamily } from '../family.ts';
import { configSurfaceRoutes } from './configSurface.ts';

/** The config family served: city.toml, linked to the sessions, agents and orders it changes, and its routes (config, patches, providers, rigs). */
export const configFamily: ServedFamily = {
  name: 'config',
  services: [linkedConfigService()],
  routes(scope, deps) {
    configSurfaceRoutes(scope, deps);
  },
};
