import { bool } from '../bd/args.ts';
import { parseGcArgs } from './args.ts';
import { ApiFailure } from '../bd/client.ts';
import { GcAgentError } from './errors.ts';
import { hookAgent, workIdentities } from './identity.ts';
import type { AgentIo } from './io.ts';
import { runWorkQuery } from './customWorkQuery.ts';
import { defaultWorkQuery, normalizeWork } from './workQuery.ts';

interface AgentView {
  name: string;
  suspended?: boolean;
  pool?: string;
  /** Ours (`?extras=true`): the agent's own work query. */
  work_query?: string;
}

/** GET the agent's view (with our extras); a missing one is upstream's "not found in config". */
export async function agentView(io: AgentIo, agent: string): Promise<AgentView> {
  const path = agent.split('/').map(encodeURIComponent).join('/');
  try {
    const at = `${await io.client.cityPath()}/agent/${path}?extras=true`;
    return (await io.client.call('GET', at)).body as AgentView;
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 404)
      throw new GcAgentError(`agent "${agent}" not found in config`);
    throw err;
  }
}

/** Whether the city in scope is suspended (`gc suspend`), from GET /v0/city/{name}. */
export async function citySuspended(io: AgentIo): Promise<boolean> {
  const { body } = await io.client.call('GET', await io.client.cityPath());
  return (body as { suspended?: boolean }).suspended === true;
}

/**
 * `gc hook [agent] [--inject]`: the agent's work: its own `work_query` (a shell command, see
 * runWorkQuery) when it has one, else upstream's default query. Plain: prints it, exit 0 with work and 1
 * without; `--inject`: a `<system-reminder>` only when there is work, always exit 0.
 */
export async function hook(io: AgentIo): Promise<number> {
  const args = parseGcArgs(io.argv, { inject: { kind: 'bool' } }, 'hook');
  const inject = bool(args, 'inject');
  try {
    if (args.positional.length > 1) throw new GcAgentError('accepts at most 1 arg(s)');
    const agent = hookAgent(io.env, args.positional[0]);
    if (!agent) throw new GcAgentError('agent not specified (set $GC_AGENT or pass as argument)');
    // The agent's view and the default query's reads go out together (one round trip of latency); the
    // agent's errors still come first. An agent with its own work_query ignores those reads. A city that
    // cannot be read is left to the other reads to report.
    const cityP = citySuspended(io).catch(() => false);
    const viewP = agentView(io, agent).then((view) => {
      if (view.suspended) throw new GcAgentError(`agent "${agent}" is suspended`);
      return view;
    });
    const outputP = defaultWorkQuery(io.client, {
      identities: workIdentities(io.env),
      template: viewP.then((view) => view.pool ?? view.name ?? agent),
      named: io.env.GC_SESSION_ORIGIN === 'named',
    });
    outputP.catch(() => undefined);
    viewP.catch(() => undefined);
    if (await cityP) throw new GcAgentError('city is suspended');
    const view = await viewP;
    const output = view.work_query
      ? await runWorkQuery(view.work_query, { env: io.env, agent })
      : await outputP;
    const work = normalizeWork(output);
    if (inject) {
      if (work.hasWork) {
        io.out(
          `<system-reminder>\nYou have pending work. Pick up the next item:\n\n<work-items>\n${work.text}\n</work-items>\n\nClaim it and start working. Run 'gc hook' to see the full queue.\n</system-reminder>\n`,
        );
      }
      return 0;
    }
    if (work.text !== '') io.out(work.text);
    return work.hasWork ? 0 : 1;
  } catch (err) {
    if (inject) return 0;
    throw err;
  }
}
