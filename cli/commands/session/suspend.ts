import { GcCommand } from '../../command.ts';
import { sessionFlags } from '../../sessionClient.ts';
import { idArg, runVerb } from '../../sessionVerb.ts';

/** `gc session suspend`: POST /v0/city/{city}/session/{id}/suspend. */
export default class SessionSuspend extends GcCommand {
  static override summary = 'Suspend a session (its process stops until it is woken).';
  static override description = `POSTs /v0/city/{city}/session/{id}/suspend: stops the process and keeps the session suspended, so the supervisor does not restart it, until "gc session wake". Prints the answer, {"status":"ok"}, as one JSON line.`;
  static override examples = [
    { description: 'Suspend a session', command: '<%= config.bin %> session suspend mayor' },
    { description: 'In another city', command: '<%= config.bin %> session suspend gc-12 --city my-city' },
  ];
  static override args = idArg;
  static override flags = sessionFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionSuspend);
    await this.out(await runVerb(flags, args.id, 'suspend'));
  }
}
