import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { ApiClient } from '../../api.ts';
import { GcCommand } from '../../command.ts';
import { discoverApi } from '../../discover.ts';

/** `gc city stop`: POST /v0/city/{name}/stop, answered once the city's controller has stopped. */
export default class CityStop extends GcCommand {
  static override summary = "Stop a city's controller and every session it started (it stays registered).";
  static override description = `POSTs /v0/city/{name}/stop. The supervisor interrupts every session of the city, waits [daemon] shutdown_timeout, stops what is left (process trees and the city's tmux server included) and answers once the controller has stopped; then prints "City stopped.". The city stays registered and starts again when the supervisor restarts; "gc city unregister" stops it and removes it from the registry.`;
  static override examples = [
    { description: 'Stop a city', command: '<%= config.bin %> city stop my-city' },
    {
      description: 'Against a supervisor elsewhere',
      command: '<%= config.bin %> city stop my-city --api http://10.0.0.5:8372',
    },
  ];
  static override args = {
    name: Args.string({ description: 'registered city name (see gc cities)', required: true }),
  };
  static override flags = {
    api: Flags.string({ description: 'supervisor API base URL (default: GC_API, then auto-discovery)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(CityStop);
    const client = new ApiClient(await discoverApi(flags.api));
    await client.postJson(`/v0/city/${encodeURIComponent(args.name)}/stop`);
    await this.out('City stopped.');
  }
}
