import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { agentFlags, agentPath, agentTarget, nameArg } from '../../agentClient.ts';
import { compact } from '../../jsonl.ts';

/** `gc agent show`: GET /v0/city/{city}/agent/{name}. */
export default class AgentShow extends GcCommand {
  static override summary = 'Show one agent as a JSON line.';
  static override description = `Reads GET /v0/city/{city}/agent/{base} (or …/agent/{rig}/{base} for a rig agent) and prints the AgentResponse as one compact JSON line, as the API sent it (pipe it to jq for a readable form).`;
  static override examples = [
    { description: 'A city agent', command: '<%= config.bin %> agent show mayor' },
    {
      description: "A rig agent's state and the last lines of its screen",
      command: "<%= config.bin %> agent show my-rig/worker --peek | jq -r '.state, .last_output'",
    },
  ];
  static override args = nameArg;
  static override flags = {
    ...agentFlags,
    peek: Flags.boolean({ description: 'include the last output of the agent (last_output)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AgentShow);
    const { client, city } = await agentTarget(flags);
    const { body } = await client.getJson<unknown>(agentPath(city, args.name), {
      peek: flags.peek ? 'true' : undefined,
    });
    await this.out(compact(body));
  }
}
