import { GcCommand } from '../../command.ts';
import { cityFlags, nameArgOf } from '../../configClient.ts';
import { runRigVerb } from '../../rigVerb.ts';

/** `gc rig suspend`. */
export default class RigSuspend extends GcCommand {
  static override summary = 'Suspend a rig: its agents are held.';
  static override description = `POSTs /v0/city/{city}/rig/{name}/suspend, which sets suspended = true in its [[rigs]]: the reconciler starts none of its agents. Prints the RigActionBody as one JSON line.`;
  static override examples = [
    { description: 'Suspend a rig', command: '<%= config.bin %> rig suspend app' },
    {
      description: 'Suspend a rig of another city',
      command: '<%= config.bin %> rig suspend app --city my-city',
    },
  ];
  static override args = nameArgOf('rig');
  static override flags = cityFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(RigSuspend);
    await this.out(await runRigVerb(flags, args.name, 'suspend'));
  }
}
