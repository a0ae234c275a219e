import { GcCommand } from '../../command.ts';
import { agentFlags, nameArg, runAgentVerb } from '../../agentClient.ts';

/** `gc agent resume`: POST /v0/city/{city}/agent/{name}/resume. */
export default class AgentResume extends GcCommand {
  static override summary = 'Resume a suspended agent.';
  static override description = `POSTs /v0/city/{city}/agent/{base}/resume (or …/agent/{rig}/{base}/resume): sets suspended = false in the agent's configuration, so its sessions are woken again by the usual rules. Prints the answer, {"status":"ok"}, as one JSON line.`;
  static override examples = [
    { description: 'Resume a city agent', command: '<%= config.bin %> agent resume mayor' },
    {
      description: 'Resume a rig agent of another city',
      command: '<%= config.bin %> agent resume my-rig/worker --city my-city',
    },
  ];
  static override args = nameArg;
  static override flags = agentFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AgentResume);
    await this.out(await runAgentVerb(flags, args.name, 'resume'));
  }
}
