import { GcCommand } from '../../command.ts';
import { agentFlags, nameArg, runAgentVerb } from '../../agentClient.ts';

/** `gc agent remove`: DELETE /v0/city/{city}/agent/{name}. */
export default class AgentRemove extends GcCommand {
  static override summary = 'Remove an agent from the city configuration.';
  static override description = `DELETEs /v0/city/{city}/agent/{base} (or …/agent/{rig}/{base}), which removes the agent's [[agent]] from city.toml. Prints the answer, {"status":"ok"}, as one JSON line.`;
  static override examples = [
    { description: 'Remove a city agent', command: '<%= config.bin %> agent remove deacon' },
    {
      description: 'Remove a rig agent of another city',
      command: '<%= config.bin %> agent remove my-rig/worker --city my-city',
    },
  ];
  static override args = nameArg;
  static override flags = agentFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AgentRemove);
    await this.out(await runAgentVerb(flags, args.name, 'remove'));
  }
}
