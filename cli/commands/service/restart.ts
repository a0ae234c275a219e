import * as Args from '@oclif/core/args';
import { GcCommand } from '../../command.ts';
import { agentFlags, agentMutation, agentTarget } from '../../agentClient.ts';
import { compact } from '../../jsonl.ts';

/** `gc service restart`: POST /v0/city/{city}/service/{name}/restart. */
export default class ServiceRestart extends GcCommand {
  static override summary = "Restart a workspace service's process.";
  static override description = `POSTs /v0/city/{city}/service/{name}/restart: the supervisor stops the service's process and starts a fresh one, and answers once it is ready or has failed ("gc service list" shows which). Prints the answer, {"status":"ok","action":"restart","service":"<name>"}, as one JSON line. An unknown service exits 1 with the API's "not_found: service <name> not found".`;
  static override examples = [
    {
      description: 'Restart the docs service of the city in scope',
      command: '<%= config.bin %> service restart docs',
    },
    {
      description: 'Restart a service of another city',
      command: '<%= config.bin %> service restart docs --city my-city',
    },
  ];
  static override args = {
    name: Args.string({ description: 'service name (its [[service]] name)', required: true }),
  };
  static override flags = agentFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServiceRestart);
    const { client, city } = await agentTarget(flags);
    const path = `/v0/city/${encodeURIComponent(city)}/service/${encodeURIComponent(args.name)}/restart`;
    await this.out(compact(await agentMutation<unknown>(client, 'POST', path)));
  }
}
