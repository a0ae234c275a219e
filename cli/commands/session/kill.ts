import { GcCommand } from '../../command.ts';
import { sessionFlags } from '../../sessionClient.ts';
import { idArg, runVerb } from '../../sessionVerb.ts';

/** `gc session kill`: POST /v0/city/{city}/session/{id}/kill. */
export default class SessionKill extends GcCommand {
  static override summary = "Kill a session's process.";
  static override description = `POSTs /v0/city/{city}/session/{id}/kill: ends the runtime process; the session keeps its state and the supervisor restarts the process by its usual rules. Prints the answer, {"status":"ok","id":…}, as one JSON line.`;
  static override examples = [
    { description: 'Kill a stuck agent (it is restarted)', command: '<%= config.bin %> session kill mayor' },
    { description: 'In another city', command: '<%= config.bin %> session kill gc-12 --city my-city' },
  ];
  static override args = idArg;
  static override flags = sessionFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionKill);
    await this.out(await runVerb(flags, args.id, 'kill'));
  }
}
