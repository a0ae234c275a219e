import { GcCommand } from '../../command.ts';
import { sessionFlags } from '../../sessionClient.ts';
import { idArg, runVerb } from '../../sessionVerb.ts';

/** `gc session stop`: POST /v0/city/{city}/session/{id}/stop. */
export default class SessionStop extends GcCommand {
  static override summary = "Stop a session's current turn (the session stays).";
  static override description = `POSTs /v0/city/{city}/session/{id}/stop: interrupts what the agent is doing (like Escape or Ctrl-C in its terminal); the process and the session stay. Prints the answer, {"status":"ok","id":…}, as one JSON line.`;
  static override examples = [
    { description: 'Interrupt the current turn', command: '<%= config.bin %> session stop mayor' },
    { description: 'In another city', command: '<%= config.bin %> session stop gc-12 --city my-city' },
  ];
  static override args = idArg;
  static override flags = sessionFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionStop);
    await this.out(await runVerb(flags, args.id, 'stop'));
  }
}
