import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, mutate, nameArgOf } from '../../configClient.ts';
import { CliError } from '../../errors.ts';
import { compact } from '../../jsonl.ts';
import type { RigUpdateInputBody } from '../../../schemas/rigs.ts';

/** `gc rig set`: PATCH /v0/city/{city}/rig/{name}. */
export default class RigSet extends GcCommand {
  static override summary = "Change a rig's path, prefix, mainline or suspension.";
  static override description = `PATCHes /v0/city/{city}/rig/{name}, which rewrites its [[rigs]] in city.toml; only the fields given change. Prints {"status":"ok"} as one JSON line.`;
  static override examples = [
    { description: 'Move a rig', command: '<%= config.bin %> rig set app --path /src/app' },
    { description: 'Resume a suspended rig', command: '<%= config.bin %> rig set app --no-suspended' },
  ];
  static override args = nameArgOf('rig');
  static override flags = {
    ...cityFlags,
    path: Flags.string({ description: 'its directory' }),
    prefix: Flags.string({ description: 'bead id / session name prefix' }),
    'default-branch': Flags.string({ description: 'its mainline branch' }),
    suspended: Flags.boolean({ description: 'suspend it (--no-suspended: resume it)', allowNo: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(RigSet);
    const body: RigUpdateInputBody = {};
    if (flags.path !== undefined) body.path = flags.path;
    if (flags.prefix !== undefined) body.prefix = flags.prefix;
    if (flags['default-branch'] !== undefined) body.default_branch = flags['default-branch'];
    if (flags.suspended !== undefined) body.suspended = flags.suspended;
    if (Object.keys(body).length === 0) {
      throw new CliError('nothing to change: pass --path, --prefix, --default-branch or --[no-]suspended');
    }
    const { client, city } = await cityTarget(flags);
    await this.out(
      compact(
        (await mutate<unknown>(client, 'PATCH', cityPath(city, 'rig', args.name), body)) ?? { status: 'ok' },
      ),
    );
  }
}
