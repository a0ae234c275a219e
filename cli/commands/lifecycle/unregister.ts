import type { AsyncAcceptedResponse } from '../../../schemas/cities.ts';
import { GcCommand } from '../../command.ts';
import { awaitCityOp, cityDirOf, lifecycleClient, requireRegistered } from '../../cityLifecycle.ts';
import { lifecycleFlags, pathArg } from './flags.ts';

/** `gc unregister [path]`: `gc city unregister` by directory, waiting until the controller stopped. */
export default class Unregister extends GcCommand {
  static override summary = 'Remove a city from the supervisor (its directory is left in place).';
  static override description = `POSTs /v0/city/{name}/unregister for the city at [path] and waits for request.result.city.unregister (the controller has stopped), then prints "Unregistered city '<name>' (<path>)". The directory on disk is not touched.`;
  static override examples = [
    {
      description: 'Unregister the city containing the current directory',
      command: '<%= config.bin %> unregister',
    },
    {
      description: 'Unregister a city by its directory',
      command: '<%= config.bin %> unregister ~/cities/alpha',
    },
  ];
  static override args = pathArg;
  static override flags = lifecycleFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Unregister);
    const dir = cityDirOf(args.path ?? flags.city);
    const client = await lifecycleClient(flags.api);
    const city = await requireRegistered(client, dir);
    const { body } = await client.postJson<AsyncAcceptedResponse>(
      `/v0/city/${encodeURIComponent(city.name)}/unregister`,
    );
    await awaitCityOp(client, body, 'request.result.city.unregister', (m) => this.note(m));
    await this.out(`Unregistered city '${city.name}' (${city.path})`);
  }
}
