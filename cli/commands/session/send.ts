import * as Args from '@oclif/core/args';
import { GcCommand } from '../../command.ts';
import { sessionFlags, sessionPath, sessionTarget } from '../../sessionClient.ts';
import { finishSessionOp, SESSION_RESULTS, waitFlags } from '../../sessionWait.ts';
import type { AsyncAcceptedBody, SessionMessageInputBody } from '../../../schemas/sessions.ts';
import { parseTimeout } from '../city/create.ts';

/** `gc session send`: POST /v0/city/{city}/session/{id}/messages, optionally waiting for the terminal event. */
export default class SessionSend extends GcCommand {
  static override summary = 'Send a message to a session.';
  static override description = `POSTs {"message"} to /v0/city/{city}/session/{id}/messages (plain text to the session, waking it if needed); the supervisor answers 202. Without --wait, prints the 202 body as one JSON line. With --wait, follows the city event stream until request.result.session.message or request.failed for this request, prints that event as one JSON line, and exits 1 with its error_message on failure. The result means the message was delivered, not that the agent answered. See also "gc session submit".`;
  static override examples = [
    {
      description: 'Send a line of text',
      command: "<%= config.bin %> session send mayor 'status report, please'",
    },
    {
      description: 'Wait until it is delivered',
      command: "<%= config.bin %> session send gc-12 'run the tests' --wait --timeout 1m",
    },
  ];
  static override args = {
    id: Args.string({ description: 'session id, alias or runtime session name', required: true }),
    text: Args.string({ description: 'the message text', required: true }),
  };
  static override flags = { ...sessionFlags, ...waitFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionSend);
    const timeoutMs = parseTimeout(flags.timeout);
    const { client, city } = await sessionTarget(flags);
    const { body: accepted } = await client.postJson<AsyncAcceptedBody>(
      sessionPath(city, args.id, 'messages'),
      { message: args.text } satisfies SessionMessageInputBody,
    );
    await finishSessionOp({
      client,
      city,
      accepted,
      resultType: SESSION_RESULTS.message,
      session: args.id,
      wait: flags.wait,
      timeoutMs,
      progress: process.stderr.isTTY === true,
      out: (line) => this.out(line),
      note: (m) => this.note(m),
    });
  }
}
