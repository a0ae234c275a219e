import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { agentFlags, agentMutation, agentsPath, agentTarget, nameArg } from '../../agentClient.ts';
import { CliError } from '../../errors.ts';
import { compact } from '../../jsonl.ts';
import type { AgentCreatedOutputBody, AgentCreateInputBody } from '../../../schemas/agents.ts';

/** `gc agent add`: POST /v0/city/{city}/agents. */
export default class AgentAdd extends GcCommand {
  static override summary = 'Add an agent to the city configuration.';
  static override description = `POSTs /v0/city/{city}/agents, which adds an [[agent]] to city.toml and answers once the agent is visible; prints the answer ({"status","agent"} with its qualified name) as one JSON line. <name> may be <rig>/<base> for a rig agent (the same as --dir <rig>). An agent of that name already there is a conflict: error; a 503 or 504 means it was stored but not yet confirmed: look with "gc agent show" before adding it again.`;
  static override examples = [
    {
      description: 'A city agent running Claude',
      command: '<%= config.bin %> agent add deacon --provider claude',
    },
    {
      description: 'A rig agent, printing its qualified name',
      command: '<%= config.bin %> agent add my-rig/worker --provider mock | jq -r .agent',
    },
  ];
  static override args = nameArg;
  static override flags = {
    ...agentFlags,
    provider: Flags.string({ description: 'the agent CLI it runs (claude, codex, mock, …)', required: true }),
    dir: Flags.string({ description: 'the rig it belongs to (its name is then <dir>/<name>)' }),
    scope: Flags.string({ description: 'agent scope (city or rig)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AgentAdd);
    const parts = args.name.split('/');
    if (parts.length > 2 || parts.some((p) => p === '')) {
      throw new CliError(`invalid agent name "${args.name}": expected <base> or <rig>/<base>`);
    }
    const [dir, name] = parts.length === 2 ? [parts[0], parts[1]!] : [flags.dir, parts[0]!];
    if (parts.length === 2 && flags.dir !== undefined && flags.dir !== dir) {
      throw new CliError(`--dir ${flags.dir} contradicts the rig of "${args.name}"`);
    }
    const body: AgentCreateInputBody = { name, provider: flags.provider };
    if (dir !== undefined) body.dir = dir;
    if (flags.scope !== undefined) body.scope = flags.scope;
    const { client, city } = await agentTarget(flags);
    const created = await agentMutation<AgentCreatedOutputBody>(client, 'POST', agentsPath(city), body);
    await this.out(compact(created));
  }
}
