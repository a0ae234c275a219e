import { recordOf } from '../../machines/recorded.ts';
import type { RestartPolicy } from '../../machines/workspaceServices/restartPolicy.ts';
import type { EventDraft } from '../../schemas/event.ts';
import type { CityServiceContext, CityServiceFactory } from '../runtime/cityServices.ts';
import { effectiveConfig } from '../config/index.ts';
import { defaultLogger } from '../runtime/logger.ts';
import { WorkspaceServices } from './workspaceServices.ts';

declare module '../runtime/cityServices.ts' {
  interface CityServiceRegistry {
    workspaceServices: WorkspaceServices;
  }
}

/** The key of the workspace services in `LiveCity.services`. */
export const WORKSPACE_SERVICES = 'workspaceServices';

/** Options of {@link workspaceServicesFactory}; every one has a production default. */
export interface WorkspaceServicesOptions {
  policy?: Partial<RestartPolicy>;
  clock?: () => Date;
}

/**
 * Starts a city's workspace services from its `[[service]]` tables; their notices go through the city's log
 * runtime. Effects: spawns processes (stopped with the city).
 */
export async function startWorkspaceServices(
  city: Pick<CityServiceContext, 'name' | 'path' | 'config' | 'log' | 'logger'>,
  options: WorkspaceServicesOptions = {},
): Promise<WorkspaceServices> {
  const logger = city.logger ?? defaultLogger();
  const record = (draft: EventDraft): void => {
    city.log
      .run(() => ({ records: [recordOf(draft)], commit: () => undefined }))
      .catch((err: unknown) =>
        logger.warn({ err, city: city.name, type: draft.type }, 'service notice not recorded'),
      );
  };
  return WorkspaceServices.start({
    cityName: city.name,
    cityPath: city.path,
    services: city.config.services ?? (await serviceTables(city)),
    record,
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

/**
 * The `[[service]]` tables of the city's effective configuration (its packs' and city.toml's, composed),
 * for a context whose config was read without them. Effects: reads city.toml and the packs.
 */
async function serviceTables(city: Pick<CityServiceContext, 'name' | 'path'>): Promise<unknown[]> {
  try {
    return (await effectiveConfig({ path: city.path, name: city.name })).composed.services;
  } catch (err) {
    // A city started without a city.toml (tools, tests) has no services; any other failure is the start's.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** The city service factory (`LiveCity.services.workspaceServices`), started in the last phase. */
export function workspaceServicesFactory(
  options: WorkspaceServicesOptions = {},
): CityServiceFactory<typeof WORKSPACE_SERVICES> {
  return {
    name: WORKSPACE_SERVICES,
    phase: 'validating_agents',
    start: async (city) => {
      const services = await startWorkspaceServices(city, options);
      return { service: services, stop: () => services.stop() };
    },
  };
}
