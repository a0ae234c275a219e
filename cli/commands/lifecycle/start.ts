import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import {
  cityDirOf,
  lifecycleClient,
  registerAndStart,
  registeredAt,
  startRegistered,
} from '../../cityLifecycle.ts';
import { dryRunAgents } from '../../dryRun.ts';
import { lifecycleFlags, pathArg } from './flags.ts';

/** `gc start [path]`: registers the city with the supervisor (when it is not yet) and starts it. */
export default class Start extends GcCommand {
  static override summary = 'Start the city under the supervisor.';
  static override description = `Registers the city directory with the supervisor (POST /v0/cities/register) when it is not registered yet and waits until the supervisor started it; a registered city that was stopped is started again (POST /v0/city/{name}/start). Prints "City started under supervisor.". With --dry-run, registers nothing and lists the agents the start would start. The supervisor must be running ("gc supervisor start").`;
  static override examples = [
    { description: 'Start the city containing the current directory', command: '<%= config.bin %> start' },
    { description: 'Preview the agents of a city', command: '<%= config.bin %> start ~/cities/alpha -n' },
  ];
  static override args = pathArg;
  static override flags = {
    ...lifecycleFlags,
    'dry-run': Flags.boolean({ char: 'n', description: 'list the agents that would start; start nothing' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Start);
    const dir = cityDirOf(args.path ?? flags.city);
    const client = await lifecycleClient(flags.api);
    const city = await registeredAt(client, dir);
    if (flags['dry-run']) {
      for (const line of await dryRunAgents(client, dir, city)) await this.out(line);
      return;
    }
    if (city) await startRegistered(client, city);
    else {
      const started = await registerAndStart(client, dir, undefined, (m) => this.note(m));
      await this.out(`Registered city '${started.name}' (${started.path})`);
    }
    await this.out('City started under supervisor.');
  }
}
