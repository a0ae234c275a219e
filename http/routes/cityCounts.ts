import { UnavailableError } from '../../actors/runtime/errors.ts';
import { agentApiFor } from './agentsService.ts';
import { configApiFor } from './configService.ts';
import type { AppDeps } from '../deps.ts';
import type { Static } from 'typebox';
import type { StatusAgentDetail } from '../../schemas/cityStatusDetails.ts';

/** The agent and rig counts of a city's detail and status, read from its agent and config services. */
export interface CityCounts {
  /** `[[agent]]` templates of the effective config (upstream CityGetResponse `agent_count`). */
  configuredAgents: number;
  /** The agents as `GET /agents` lists them (pool instances each), by state. */
  agents: { total: number; running: number; suspended: number; quarantined: number };
  rigs: { total: number; suspended: number };
  /** One row per agent listed (status's `agent_details`); absent when the agents could not be listed. */
  agentDetails?: Static<typeof StatusAgentDetail>[];
  /** One line per service that could not be read (status's `partial_errors`). */
  errors: string[];
}

/**
 * Counts a running city's agents and rigs. A city running without its config or agent service (a start-up
 * phase not run or failed) counts what it can: `fallbackAgents` configured agents, the rest zero, and an
 * error line each, so status can say it is partial.
 * Effects: reads the city's config and agent services.
 * @throws NotFoundError while the city is not running; what the services throw besides UnavailableError.
 */
export async function cityCounts(
  deps: Pick<AppDeps, 'cities'>,
  cityName: string,
  fallbackAgents: number,
): Promise<CityCounts> {
  const errors: string[] = [];
  let configuredAgents = fallbackAgents;
  const rigs = { total: 0, suspended: 0 };
  try {
    const config = configApiFor(deps, cityName).counts();
    configuredAgents = config.agents;
    rigs.total = config.rigs;
    rigs.suspended = config.suspendedRigs;
  } catch (err) {
    if (!(err instanceof UnavailableError)) throw err;
    errors.push(`rigs: ${err.message}`);
  }
  const agents = { total: configuredAgents, running: 0, suspended: 0, quarantined: 0 };
  let agentDetails: Static<typeof StatusAgentDetail>[] | undefined;
  try {
    const { items } = await agentApiFor(deps, cityName).list({});
    agents.total = items.length;
    for (const agent of items) {
      if (agent.running) agents.running++;
      if (agent.suspended) agents.suspended++;
      if (agent.state === 'quarantined') agents.quarantined++;
    }
    agentDetails = items.map((agent) => ({
      name: agent.name.slice(agent.name.lastIndexOf('/') + 1),
      qualified_name: agent.name,
      scope: agent.rig ? 'rig' : 'city',
      running: agent.running,
      suspended: agent.suspended,
      ...(agent.pool ? { expanded: true, group_name: agent.pool } : {}),
      ...(agent.session ? { session_name: agent.session.name } : {}),
    }));
  } catch (err) {
    if (!(err instanceof UnavailableError)) throw err;
    errors.push(`agents: ${err.message}`);
  }
  return { configuredAgents, agents, rigs, errors, ...(agentDetails ? { agentDetails } : {}) };
}
