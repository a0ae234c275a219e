import { GcCommand } from '../../command.ts';
import { agentFlags, nameArg, runAgentVerb } from '../../agentClient.ts';

/** `gc agent suspend`: POST /v0/city/{city}/agent/{name}/suspend. */
export default class AgentSuspend extends GcCommand {
  static override summary = 'Suspend an agent (its sessions are drained and not woken).';
  static override description = `POSTs /v0/city/{city}/agent/{base}/suspend (or …/agent/{rig}/{base}/suspend): sets suspended = true in the agent's configuration, so its sessions are drained and not woken until "gc agent resume". To hold one session instead, use "gc session suspend". Prints the answer, {"status":"ok"}, as one JSON line.`;
  static override examples = [
    { description: 'Suspend a city agent', command: '<%= config.bin %> agent suspend mayor' },
    {
      description: 'Suspend a rig agent of another city',
      command: '<%= config.bin %> agent suspend my-rig/worker --city my-city',
    },
  ];
  static override args = nameArg;
  static override flags = agentFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AgentSuspend);
    await this.out(await runAgentVerb(flags, args.name, 'suspend'));
  }
}
