import { GcCommand } from '../../command.ts';
import { cityDirOf, lifecycleClient, requireRegistered, stopRegistered } from '../../cityLifecycle.ts';
import { lifecycleFlags, pathArg } from './flags.ts';

/** `gc stop [path]`: stops the city's controller; every session it started ends. */
export default class Stop extends GcCommand {
  static override summary = 'Stop the city: its controller and every session it started.';
  static override description = `POSTs /v0/city/{name}/stop and answers once the controller stopped: each session the city started is interrupted, given the city's shutdown_timeout, then killed. The city stays registered ("gc start" starts it again). Prints "City stopped."; a city that is already stopped is not an error.`;
  static override examples = [
    { description: 'Stop the city containing the current directory', command: '<%= config.bin %> stop' },
    { description: 'Stop a city by its directory', command: '<%= config.bin %> stop ~/cities/alpha' },
  ];
  static override args = pathArg;
  static override flags = lifecycleFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Stop);
    const dir = cityDirOf(args.path ?? flags.city);
    const client = await lifecycleClient(flags.api);
    await stopRegistered(client, await requireRegistered(client, dir));
    await this.out('City stopped.');
  }
}
