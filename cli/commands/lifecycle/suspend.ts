import { GcCommand } from '../../command.ts';
import { cityDirOf, lifecycleClient, requireRegistered } from '../../cityLifecycle.ts';
import { lifecycleFlags, pathArg } from './flags.ts';

/** PATCHes `workspace.suspended` of the city at [path] and says so. */
async function setSuspended(
  cmd: GcCommand & { out(line: string): Promise<void> },
  path: string | undefined,
  api: string | undefined,
  suspended: boolean,
): Promise<void> {
  const dir = cityDirOf(path);
  const client = await lifecycleClient(api);
  const city = await requireRegistered(client, dir);
  await client.patchJson(`/v0/city/${encodeURIComponent(city.name)}`, { suspended });
  await cmd.out(`City ${suspended ? 'suspended' : 'resumed'} (${dir})`);
}

/** `gc suspend [path]`. */
export class Suspend extends GcCommand {
  static override summary = 'Suspend the city (every agent is effectively suspended).';
  static override description = `PATCHes /v0/city/{name} {"suspended": true} (city.suspended is recorded): hook and prime then answer nothing. Prints "City suspended (<path>)".`;
  static override args = pathArg;
  static override flags = lifecycleFlags;

  override async out(line: string): Promise<void> {
    await super.out(line);
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Suspend);
    await setSuspended(this, args.path ?? flags.city, flags.api, true);
  }
}

/** `gc resume [path]`. */
export class Resume extends GcCommand {
  static override summary = 'Resume a suspended city.';
  static override description = `PATCHes /v0/city/{name} {"suspended": false} (city.resumed is recorded). Prints "City resumed (<path>)".`;
  static override args = pathArg;
  static override flags = lifecycleFlags;

  override async out(line: string): Promise<void> {
    await super.out(line);
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Resume);
    await setSuspended(this, args.path ?? flags.city, flags.api, false);
  }
}
