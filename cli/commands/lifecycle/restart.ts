import { GcCommand } from '../../command.ts';
import {
  cityDirOf,
  lifecycleClient,
  requireRegistered,
  startRegistered,
  stopRegistered,
} from '../../cityLifecycle.ts';
import { lifecycleFlags, pathArg } from './flags.ts';

/** `gc restart [path]`: `gc stop`, then `gc start`. */
export default class Restart extends GcCommand {
  static override summary = 'Restart the city: stop it, then start it again.';
  static override description = `Stops the city (POST /v0/city/{name}/stop: every session it started ends) and starts it again (POST /v0/city/{name}/start), printing "City stopped." and "City started under supervisor.". The city stays registered throughout.`;
  static override examples = [
    {
      description: 'Restart the city containing the current directory',
      command: '<%= config.bin %> restart',
    },
    { description: 'Restart a city by its directory', command: '<%= config.bin %> restart ~/cities/alpha' },
  ];
  static override args = pathArg;
  static override flags = lifecycleFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Restart);
    const dir = cityDirOf(args.path ?? flags.city);
    const client = await lifecycleClient(flags.api);
    const city = await requireRegistered(client, dir);
    await stopRegistered(client, city);
    await this.out('City stopped.');
    await startRegistered(client, { ...city, running: false, status: 'stopped' });
    await this.out('City started under supervisor.');
  }
}
