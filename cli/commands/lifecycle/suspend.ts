import { GcCommand } from '../../command.ts';
import { cityDirOf, lifecycleClient, requireRegistered } from '../../cityLifecycle.ts';
import { lifecycleFlags, pathArg } from './flags.ts';

/** PATCHes `workspace.suspended` of the city at [path]; resolves the line that says so. */
async function setSuspended(
  path: string | undefined,
  api: string | undefined,
  suspended: boolean,
): Promise<string> {
  const dir = cityDirOf(path);
  const client = await lifecycleClient(api);
  const city = await requireRegistered(client, dir);
  await client.patchJson(`/v0/city/${encodeURIComponent(city.name)}`, { suspended });
  return `City ${suspended ? 'suspended' : 'resumed'} (${dir})`;
}

/** `gc suspend [path]`. */
export class Suspend extends GcCommand {
  static override summary = 'Suspend the city (every agent is effectively suspended).';
  static override description = `PATCHes /v0/city/{name} {"suspended": true} (city.suspended is recorded): hook and prime then answer nothing. Prints "City suspended (<path>)".`;
  static override examples = [
    {
      description: 'Suspend the city containing the current directory',
      command: '<%= config.bin %> suspend',
    },
    { description: 'Suspend a city by its directory', command: '<%= config.bin %> suspend ~/cities/alpha' },
  ];
  static override args = pathArg;
  static override flags = lifecycleFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Suspend);
    await this.out(await setSuspended(args.path ?? flags.city, flags.api, true));
  }
}

/** `gc resume [path]`. */
export class Resume extends GcCommand {
  static override summary = 'Resume a suspended city.';
  static override description = `PATCHes /v0/city/{name} {"suspended": false} (city.resumed is recorded). Prints "City resumed (<path>)".`;
  static override examples = [
    { description: 'Resume the city containing the current directory', command: '<%= config.bin %> resume' },
    { description: 'Resume a city by its directory', command: '<%= config.bin %> resume ~/cities/alpha' },
  ];
  static override args = pathArg;
  static override flags = lifecycleFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Resume);
    await this.out(await setSuspended(args.path ?? flags.city, flags.api, false));
  }
}
