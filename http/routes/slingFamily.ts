import type { ServedFamily } from '../family.ts';
import { slingRoutes } from './sling.ts';

/** The sling family served: routing work to agents, over the beads, agents and formulas services (none of its own). */
export const slingFamily: ServedFamily = {
  name: 'sling',
  services: [],
  routes(scope, deps) {
    slingRoutes(scope, deps);
  },
};
