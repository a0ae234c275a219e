import { agentServiceFactory } from '../../actors/agents/index.ts';
import type { ServedFamily } from '../family.ts';
import { agentRoutes } from './agents.ts';

/** The agents family served: the agent service (pools, demand, sessions per agent), and its routes. */
export const agentsFamily: ServedFamily = {
  name: 'agents',
  services: [agentServiceFactory],
  routes(scope, deps) {
    agentRoutes(scope, deps);
  },
};
