import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, nameArgOf } from '../../configClient.ts';
import { compact } from '../../jsonl.ts';

/** `gc rig show`: GET /v0/city/{city}/rig/{name}. */
export default class RigShow extends GcCommand {
  static override summary = 'Show one rig.';
  static override description = `Reads GET /v0/city/{city}/rig/{name} and prints the RigResponse (path, prefix, suspended, agent and running counts; git status with --git) as one JSON line.`;
  static override examples = [
    { description: 'One rig', command: '<%= config.bin %> rig show my-repo' },
    {
      description: 'Its current branch',
      command: '<%= config.bin %> rig show my-repo --git | jq -r .git.branch',
    },
  ];
  static override args = nameArgOf('rig');
  static override flags = { ...cityFlags, git: Flags.boolean({ description: 'include its git status' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(RigShow);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.getJson<unknown>(cityPath(city, 'rig', args.name), {
      git: flags.git ? 'true' : undefined,
    });
    await this.out(compact(body));
  }
}
