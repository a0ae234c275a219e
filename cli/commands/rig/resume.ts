import { GcCommand } from '../../command.ts';
import { cityFlags, nameArgOf } from '../../configClient.ts';
import { runRigVerb } from '../../rigVerb.ts';

/** `gc rig resume`. */
export default class RigResume extends GcCommand {
  static override summary = 'Resume a suspended rig.';
  static override description = `POSTs /v0/city/{city}/rig/{name}/resume, which sets suspended = false in its [[rigs]]: its agents are started again. Prints the RigActionBody as one JSON line.`;
  static override examples = [
    { description: 'Resume a rig', command: '<%= config.bin %> rig resume app' },
    {
      description: 'Resume a rig of another city',
      command: '<%= config.bin %> rig resume app --city my-city',
    },
  ];
  static override args = nameArgOf('rig');
  static override flags = cityFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(RigResume);
    await this.out(await runRigVerb(flags, args.name, 'resume'));
  }
}
