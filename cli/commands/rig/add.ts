import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, mutate, nameArgOf } from '../../configClient.ts';
import { compact } from '../../jsonl.ts';
import type { RigCreateInputBody } from '../../../schemas/rigs.ts';

/** `gc rig add`: POST /v0/city/{city}/rigs. */
export default class RigAdd extends GcCommand {
  static override summary = 'Add a rig (a repository) to the city.';
  static override description = `POSTs /v0/city/{city}/rigs, which appends a [[rigs]] to city.toml (validated, written atomically, recorded as config.changed). Prints the answer, {"status":"created","rig":…}, as one JSON line. A rig of that name already there is a conflict: error.`;
  static override examples = [
    { description: 'A repository beside the city', command: '<%= config.bin %> rig add app --path ../app' },
    {
      description: 'With its bead prefix and mainline',
      command: '<%= config.bin %> rig add lib --path /src/lib --prefix lb --default-branch trunk',
    },
  ];
  static override args = nameArgOf('rig');
  static override flags = {
    ...cityFlags,
    path: Flags.string({
      description: 'its directory (relative to the city directory, or absolute)',
      required: true,
    }),
    prefix: Flags.string({ description: 'bead id / session name prefix' }),
    'default-branch': Flags.string({ description: 'its mainline branch' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(RigAdd);
    const body: RigCreateInputBody = { name: args.name, path: flags.path };
    if (flags.prefix !== undefined) body.prefix = flags.prefix;
    if (flags['default-branch'] !== undefined) body.default_branch = flags['default-branch'];
    const { client, city } = await cityTarget(flags);
    await this.out(compact(await mutate<unknown>(client, 'POST', cityPath(city, 'rigs'), body)));
  }
}
