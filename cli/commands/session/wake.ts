import { GcCommand } from '../../command.ts';
import { sessionFlags } from '../../sessionClient.ts';
import { idArg, runVerb } from '../../sessionVerb.ts';

/** `gc session wake`: POST /v0/city/{city}/session/{id}/wake. */
export default class SessionWake extends GcCommand {
  static override summary = 'Wake a suspended or sleeping session.';
  static override description = `POSTs /v0/city/{city}/session/{id}/wake: the supervisor starts the session again. Prints the answer, {"status":"ok","id":…}, as one JSON line.`;
  static override examples = [
    { description: 'Wake a session', command: '<%= config.bin %> session wake mayor' },
    { description: 'In another city', command: '<%= config.bin %> session wake gc-12 --city my-city' },
  ];
  static override args = idArg;
  static override flags = sessionFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionWake);
    await this.out(await runVerb(flags, args.id, 'wake'));
  }
}
