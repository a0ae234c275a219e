import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { agentFlags, agentMutation, agentPath, agentTarget, nameArg } from '../../agentClient.ts';
import { CliError } from '../../errors.ts';
import { compact } from '../../jsonl.ts';
import type { AgentUpdateInputBody } from '../../../schemas/agents.ts';

/** `gc agent set`: PATCH /v0/city/{city}/agent/{name}. */
export default class AgentSet extends GcCommand {
  static override summary = "Change an agent's provider, scope or suspension.";
  static override description = `PATCHes /v0/city/{city}/agent/{base} (or …/agent/{rig}/{base}), which rewrites the agent's [[agent]] in city.toml; only the fields given change. Prints the answer, {"status":"ok"}, as one JSON line.`;
  static override examples = [
    {
      description: 'Switch an agent to another provider',
      command: '<%= config.bin %> agent set mayor --provider codex',
    },
    {
      description: 'Resume a suspended rig agent through its configuration',
      command: '<%= config.bin %> agent set my-rig/worker --no-suspended --city my-city',
    },
  ];
  static override args = nameArg;
  static override flags = {
    ...agentFlags,
    provider: Flags.string({ description: 'the agent CLI it runs' }),
    scope: Flags.string({ description: 'agent scope (city or rig)' }),
    suspended: Flags.boolean({ description: 'suspend it (--no-suspended: resume it)', allowNo: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AgentSet);
    const body: AgentUpdateInputBody = {};
    if (flags.provider !== undefined) body.provider = flags.provider;
    if (flags.scope !== undefined) body.scope = flags.scope;
    if (flags.suspended !== undefined) body.suspended = flags.suspended;
    if (Object.keys(body).length === 0) {
      throw new CliError('nothing to change: pass --provider, --scope or --[no-]suspended');
    }
    const { client, city } = await agentTarget(flags);
    const answer = await agentMutation<unknown>(client, 'PATCH', agentPath(city, args.name), body);
    await this.out(compact(answer ?? { status: 'ok' }));
  }
}
