import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { sessionFlags } from '../../sessionClient.ts';
import { idArg, runVerb } from '../../sessionVerb.ts';

/** `gc session close`: POST /v0/city/{city}/session/{id}/close. */
export default class SessionClose extends GcCommand {
  static override summary = 'Close a session for good (optionally deleting its record).';
  static override description = `POSTs /v0/city/{city}/session/{id}/close: stops the process and closes the session; a closed session is not restarted or woken. With --delete (?delete=true) its session bead is deleted too. Prints the answer, {"status":"ok"}, as one JSON line.`;
  static override examples = [
    { description: 'Close a session', command: '<%= config.bin %> session close gc-12' },
    {
      description: 'Close it and delete its record',
      command: '<%= config.bin %> session close gc-12 --delete',
    },
  ];
  static override args = idArg;
  static override flags = {
    ...sessionFlags,
    delete: Flags.boolean({ description: 'also delete the session bead permanently' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionClose);
    await this.out(await runVerb(flags, args.id, 'close', { delete: flags.delete ? 'true' : undefined }));
  }
}
