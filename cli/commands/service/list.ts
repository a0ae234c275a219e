import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { agentFlags, agentTarget } from '../../agentClient.ts';
import { compact } from '../../jsonl.ts';
import { servicesTable } from '../../serviceTable.ts';
import type { ServiceStatus } from '../../../schemas/workspaceServices.ts';

/** `gc service list`: GET /v0/city/{city}/services. */
export default class ServiceList extends GcCommand {
  static override summary = 'List the workspace services of the city in scope.';
  static override description = `Reads GET /v0/city/{city}/services: every [[service]] of the city's city.toml with its state (starting, ready, degraded, stopped, or config_error with the reason). Prints a table (NAME, KIND, STATE, MOUNT, REASON; MOUNT is reached as /v0/city/{city}<MOUNT>/…), or with --json one Status object per line, as the API sent it. The city is --city, GC_CITY, or the city directory containing the current directory.`;
  static override examples = [
    {
      description: 'A table of the services of the city in scope',
      command: '<%= config.bin %> service list',
    },
    {
      description: 'The services that are not ready, as JSON Lines',
      command: `<%= config.bin %> service list --city my-city --json | jq -c 'select(.local_state != "ready")'`,
    },
  ];
  static override flags = {
    ...agentFlags,
    json: Flags.boolean({ description: 'one JSON object per service per line instead of a table' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServiceList);
    const { client, city } = await agentTarget(flags);
    const { body } = await client.getJson<{ items: ServiceStatus[] | null }>(
      `/v0/city/${encodeURIComponent(city)}/services`,
    );
    const services = body.items ?? [];
    if (flags.json) for (const s of services) await this.out(compact(s));
    else for (const line of servicesTable(services)) await this.out(line);
  }
}
