import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { agentFlags, agentsPath, agentTarget } from '../../agentClient.ts';
import { agentsTable } from '../../agentTable.ts';
import { compact } from '../../jsonl.ts';
import type { ListBodyAgentResponse } from '../../../schemas/agents.ts';

/** `gc agent list`: GET /v0/city/{city}/agents. */
export default class AgentList extends GcCommand {
  static override summary = 'List the agents of the city in scope.';
  static override description = `Reads GET /v0/city/{city}/agents: every configured agent (pool instances expanded) with its live state. Prints a table (NAME, STATE, RUNNING, PROVIDER, POOL, SESSION; NAME is what the other agent commands take), or with --json one AgentResponse object per line, as the API sent it. The city is --city, GC_CITY, or the city directory containing the current directory.`;
  static override examples = [
    { description: 'A table of the agents of the city in scope', command: '<%= config.bin %> agent list' },
    {
      description: 'The running instances of one pool, as JSON Lines',
      command: '<%= config.bin %> agent list --city my-city --pool worker --running --json | jq -r .name',
    },
    {
      description: 'Agents that are not running, with a preview of each screen',
      command: "<%= config.bin %> agent list --no-running --peek --json | jq -r '.last_output'",
    },
  ];
  static override flags = {
    ...agentFlags,
    json: Flags.boolean({ description: 'one JSON object per agent per line instead of a table' }),
    pool: Flags.string({ description: "only instances of this pool (a template's qualified name)" }),
    rig: Flags.string({ description: 'only agents of this rig' }),
    running: Flags.boolean({
      description: 'only running agents (--no-running: only agents that are not running)',
      allowNo: true,
    }),
    peek: Flags.boolean({ description: 'include each agent’s last output (last_output, JSON only)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(AgentList);
    const { client, city } = await agentTarget(flags);
    const { body } = await client.getJson<ListBodyAgentResponse>(agentsPath(city), {
      pool: flags.pool,
      rig: flags.rig,
      running: flags.running === undefined ? undefined : String(flags.running),
      peek: flags.peek ? 'true' : undefined,
    });
    const agents = body.items ?? [];
    if (flags.json) for (const a of agents) await this.out(compact(a));
    else for (const line of agentsTable(agents)) await this.out(line);
  }
}
