import { maintenanceServiceFactory } from '../../actors/maintenance/index.ts';
import type { ServedFamily } from '../family.ts';
import { maintenanceRoutes } from './maintenance.ts';

/** The maintenance family served: the store's housekeeping (rotation, disk checks), and its routes. */
export const maintenanceFamily: ServedFamily = {
  name: 'maintenance',
  services: [maintenanceServiceFactory()],
  routes(scope, deps) {
    maintenanceRoutes(scope, deps);
  },
};
