import { GcCommand } from '../../command.ts';
import { cityFlags, nameArgOf } from '../../configClient.ts';
import { runRigVerb } from '../../rigVerb.ts';

/** `gc rig remove`. */
export default class RigRemove extends GcCommand {
  static override summary = 'Remove a rig from the city.';
  static override description = `DELETEs /v0/city/{city}/rig/{name}, which removes its [[rigs]] from city.toml. Prints {"status":"ok"} as one JSON line.`;
  static override examples = [
    { description: 'Remove a rig', command: '<%= config.bin %> rig remove app' },
    {
      description: 'Remove a rig of another city',
      command: '<%= config.bin %> rig remove app --city my-city',
    },
  ];
  static override args = nameArgOf('rig');
  static override flags = cityFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(RigRemove);
    await this.out(await runRigVerb(flags, args.name, 'remove'));
  }
}
