/**
 * The agents service of a city, started in the `validating_agents` phase after its sessions service.
 */
import { BEAD_SERVICE } from '../beads/index.ts';

import type { CityService, CityServiceFactory } from '../runtime/cityServices.ts';
import { UnavailableError } from '../runtime/errors.ts';
import { defaultLogger } from '../runtime/logger.ts';
import { SESSION_SERVICE, SessionService } from '../sessions/index.ts';
import { AGENT_SERVICE, type AgentApi } from './agentApi.ts';
import { AgentService } from './agentService.ts';

declare module '../runtime/cityServices.ts' {
  interface CityServiceRegistry {
    agents: AgentApi;
  }
}

export const agentServiceFactory: CityServiceFactory<typeof AGENT_SERVICE> = {
  name: AGENT_SERVICE,
  phase: 'validating_agents',
  async start(city): Promise<CityService & { service: AgentService }> {
    const store = city.started?.[BEAD_SERVICE];
    const sessions = city.started?.[SESSION_SERVICE];
    if (!store || !(sessions instanceof SessionService)) {
      throw new UnavailableError(`city ${city.name} has no bead store or sessions for its agents`);
    }
    const service = new AgentService({
      city: city.name,
      path: city.path,
      store,
      sessions,
      log: city.log,
      logger: city.logger ?? defaultLogger(),
      ...(city.observer ? { observer: city.observer } : {}),
    });
    await service.startService();
    return { service, stop: () => service.stopService() };
  },
};
