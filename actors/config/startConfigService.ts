/**
 * The config service of a city, started in the `validating_agents` phase after its sessions and agents (it
 * hands them the config after every change, and restarts a rig's sessions).
 */
import type { CityServiceFactory, CityServiceMap } from '../runtime/cityServices.ts';
import { defaultLogger } from '../runtime/logger.ts';
import { CONFIG_SERVICE, type ConfigApi } from './configApi.ts';
import { ConfigService, type ConfigServiceOptions } from './configService.ts';

declare module '../runtime/cityServices.ts' {
  interface CityServiceRegistry {
    config: ConfigApi;
  }
}

/** What the config service is linked to in a city: given by the composition root, which knows the families. */
export type ConfigLinks = Pick<ConfigServiceOptions, 'sessions' | 'poke' | 'moreProblems'>;

/**
 * A factory of the config service; `pollMs` is how often city.toml is looked at besides its watch; `link`
 * finds, among the services started before it, the ones it hands each change to.
 */
export function configServiceFactory(
  options: { pollMs?: number; link?: (started: CityServiceMap) => ConfigLinks } = {},
): CityServiceFactory<typeof CONFIG_SERVICE> {
  const { link, ...rest } = options;
  return {
    name: CONFIG_SERVICE,
    phase: 'validating_agents',
    async start(city) {
      const service = new ConfigService({
        city: city.name,
        path: city.path,
        log: city.log,
        logger: city.logger ?? defaultLogger(),
        ...(link && city.started ? link(city.started) : {}),
        ...rest,
      });
      await service.start();
      return { service, stop: () => service.stop() };
    },
  };
}
