import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityDirOf, lifecycleClient, registerAndStart, registeredAt } from '../../cityLifecycle.ts';
import { lifecycleFlags, pathArg } from './flags.ts';

/** `gc register [path]`: registers a city directory with the supervisor (idempotent). */
export default class Register extends GcCommand {
  static override summary = 'Register a city with the supervisor.';
  static override description = `The directory must hold a city.toml. POSTs /v0/cities/register and waits until the supervisor started the city, then prints "Registered city '<name>' (<path>)". The name is --name, else city.toml's workspace.name, else the directory's name. Registering a city that is already registered prints the same line and changes nothing.`;
  static override examples = [
    { description: 'Register the city in the current directory', command: '<%= config.bin %> register' },
    {
      description: 'Register under another name',
      command: '<%= config.bin %> register ~/cities/alpha --name lab',
    },
  ];
  static override args = pathArg;
  static override flags = {
    ...lifecycleFlags,
    name: Flags.string({ description: 'the name to register the city under' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Register);
    const dir = cityDirOf(args.path ?? flags.city);
    const client = await lifecycleClient(flags.api);
    const city =
      (await registeredAt(client, dir)) ??
      (await registerAndStart(client, dir, flags.name, (m) => this.note(m)));
    await this.out(`Registered city '${city.name}' (${city.path})`);
  }
}
