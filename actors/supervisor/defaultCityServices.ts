import { BEAD_SERVICE, startBeadService } from '../beads/index.ts';
import { agentServiceFactory, AgentService } from '../agents/index.ts';
import type { CityServiceFactory } from '../runtime/cityServices.ts';
import { configServiceFactory } from '../config/index.ts';
import { SessionService, sessionServiceFactory } from '../sessions/index.ts';
import { orderProblems, orderServiceFactory } from '../orders/index.ts';
import { extmsgServiceFactory } from '../extmsg/index.ts';
import { formulaServiceFactory } from '../formulas/index.ts';
import { workspaceServicesFactory } from '../workspaceServices/index.ts';
import { maintenanceServiceFactory } from '../maintenance/index.ts';

/** The city's bead store, started in the `starting_bead_store` phase (`LiveCity.services.beads`). */
export const beadStoreService: CityServiceFactory<typeof BEAD_SERVICE> = {
  name: BEAD_SERVICE,
  phase: 'starting_bead_store',
  start: (city) => startBeadService(city, city.logger ? { logger: city.logger } : {}),
};

/**
 * The config service linked to the families it serves: each valid change of city.toml goes to the sessions,
 * the agents are poked to reconcile, and validate also reports the orders' problems.
 */
export function linkedConfigService(options: { pollMs?: number } = {}): CityServiceFactory<'config'> {
  return configServiceFactory({
    ...options,
    link: ({ sessions, agents }) => ({
      ...(sessions instanceof SessionService ? { sessions } : {}),
      ...(agents instanceof AgentService ? { poke: () => agents.poke() } : {}),
      moreProblems: orderProblems,
    }),
  });
}

/** The services every city starts with unless a supervisor is given its own list: beads, sessions, agents, extmsg, formulas, orders, workspace services, maintenance. */
export const DEFAULT_CITY_SERVICES: readonly CityServiceFactory[] = [
  beadStoreService,
  sessionServiceFactory(),
  agentServiceFactory,
  linkedConfigService(),
  extmsgServiceFactory(),
  formulaServiceFactory,
  orderServiceFactory(),
  workspaceServicesFactory(),
  maintenanceServiceFactory(),
];
