import { beadStoreService } from '../../actors/beads/index.ts';
import type { ServedFamily } from '../family.ts';
import { beadRoutes } from './beads.ts';
import { convoyRoutes } from './convoys.ts';
import { mailRoutes } from './mail.ts';

/** The beads family served: the bead store, and its routes (beads, mail, convoys). */
export const beadsFamily: ServedFamily = {
  name: 'beads',
  services: [beadStoreService],
  routes(scope, deps) {
    beadRoutes(scope, deps);
    mailRoutes(scope, deps);
    convoyRoutes(scope, deps);
  },
};
