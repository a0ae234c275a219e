import { AgentService } from '../agents/index.ts';
import type { CityServiceFactory } from '../runtime/cityServices.ts';
import { configServiceFactory } from '../config/index.ts';
import { SessionService } from '../sessions/index.ts';
import { orderProblems } from '../orders/index.ts';

/**
 * The config service linked to the families it serves: each valid change of city.toml goes to the sessions,
 * the agents are poked to reconcile, and validate also reports the orders' problems. Lives with the
 * supervisor because it joins four families; the config family's served entry (http/routes/configSurface.ts)
 * starts it.
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
