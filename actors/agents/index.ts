/** The agents family's face: what other families and the HTTP layer may use of it. */
export {
  AGENT_ACTIONS,
  AGENT_SERVICE,
  type AgentAction,
  type AgentApi,
  type AgentListQuery,
  type AgentOutput,
  type OutputTurn,
} from './agentApi.ts';
export { AgentService } from './agentService.ts';
export { agentServiceFactory } from './startAgentService.ts';
