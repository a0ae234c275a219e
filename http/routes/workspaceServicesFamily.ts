import { workspaceServicesFactory } from '../../actors/workspaceServices/index.ts';
import type { ServedFamily } from '../family.ts';
import { serviceRoutes } from './services.ts';

/** The workspace services family served: the city's `[[service]]` processes and their proxy, and its routes. */
export const workspaceServicesFamily: ServedFamily = {
  name: 'workspaceServices',
  services: [workspaceServicesFactory()],
  routes(scope, deps) {
    serviceRoutes(scope, deps);
  },
};
