/**
 * The config service of a city, started in the `validating_agents` phase after its sessions and agents (it
 * hands them the config after every change, and restarts a rig's sessions).
 */
import { AGENT_SERVICE } from '../agents/agentApi.ts';
import type { CityServiceFactory } from '../runtime/cityServices.ts';
import { defaultLogger } from '../runtime/logger.ts';
import { SESSION_SERVICE } from '../sessions/sessionApi.ts';
import { SessionService } from '../sessions/sessionService.ts';
import { CONFIG_SERVICE } from './configApi.ts';
import { ConfigService } from './configService.ts';

/** A factory of the config service; `pollMs` is how often city.toml is looked at besides its watch. */
export function configServiceFactory(options: { pollMs?: number } = {}): CityServiceFactory {
  return {
    name: CONFIG_SERVICE,
    phase: 'validating_agents',
    async start(city) {
      const sessions = city.started?.get(SESSION_SERVICE);
      const agents = city.started?.get(AGENT_SERVICE) as { poke?: () => void } | undefined;
      const service = new ConfigService({
        city: city.name,
        path: city.path,
        log: city.log,
        logger: city.logger ?? defaultLogger(),
        ...(sessions instanceof SessionService ? { sessions } : {}),
        ...(typeof agents?.poke === 'function' ? { poke: () => agents.poke!() } : {}),
        ...options,
      });
      await service.start();
      return { service, stop: () => service.stop() };
    },
  };
}
