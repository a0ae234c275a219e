import { GcCommand } from '../../command.ts';
import { cityFlags, nameArgOf } from '../../configClient.ts';
import { runRigVerb } from '../../rigVerb.ts';

/** `gc rig restart`. */
export default class RigRestart extends GcCommand {
  static override summary = "Restart the running sessions of a rig's agents.";
  static override description = `POSTs /v0/city/{city}/rig/{name}/restart, which stops the running sessions of the rig's agents (the reconciler starts them again). Prints the RigActionBody ({"killed":[…],"failed":[…],"status":"ok|partial|failed"}) as one JSON line.`;
  static override examples = [
    { description: 'Restart a rig', command: '<%= config.bin %> rig restart app' },
    {
      description: 'The sessions it stopped',
      command: '<%= config.bin %> rig restart app | jq -r ".killed[]"',
    },
  ];
  static override args = nameArgOf('rig');
  static override flags = cityFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(RigRestart);
    await this.out(await runRigVerb(flags, args.name, 'restart'));
  }
}
