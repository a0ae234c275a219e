import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { sessionFlags, sessionPath, sessionTarget } from '../../sessionClient.ts';
import { finishSessionOp, SESSION_RESULTS, waitFlags } from '../../sessionWait.ts';
import type {
  AsyncAcceptedBody,
  SessionSubmitInputBody,
  SubmitIntentValue,
} from '../../../schemas/sessions.ts';
import { parseTimeout } from '../city/create.ts';

// SubmitIntent's values for the flag. schemas/sessions.ts lists them beside TypeBox, which gc does not load
// at start-up; the Record has the compiler check that this names every intent and nothing else.
const INTENT_SET: Record<SubmitIntentValue, true> = { default: true, follow_up: true, interrupt_now: true };
const INTENTS = Object.keys(INTENT_SET);

/** `gc session submit`: POST /v0/city/{city}/session/{id}/submit, optionally waiting for the terminal event. */
export default class SessionSubmit extends GcCommand {
  static override summary = 'Submit a user turn to a session, with an intent.';
  static override description = `POSTs {"message","intent"} to /v0/city/{city}/session/{id}/submit; the supervisor answers 202. --intent default delivers as a normal turn, follow_up queues it behind the current turn, interrupt_now interrupts the current turn first (what a provider supports is in the session's submission_capabilities). Without --wait, prints the 202 body as one JSON line. With --wait, follows the city event stream until request.result.session.submit (its payload says the resolved intent and whether delivery was queued) or request.failed, prints that event as one JSON line, and exits 1 with its error_message on failure.`;
  static override examples = [
    {
      description: 'A normal turn',
      command: "<%= config.bin %> session submit mayor 'summarise the open beads'",
    },
    {
      description: 'Interrupt what it is doing and wait for the delivery',
      command: "<%= config.bin %> session submit gc-12 'stop, wrong branch' --intent interrupt_now --wait",
    },
  ];
  static override args = {
    id: Args.string({ description: 'session id, alias or runtime session name', required: true }),
    text: Args.string({ description: 'the message text', required: true }),
  };
  static override flags = {
    ...sessionFlags,
    intent: Flags.string({
      description: 'how to deliver it',
      options: INTENTS,
      default: 'default',
    }),
    ...waitFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionSubmit);
    const timeoutMs = parseTimeout(flags.timeout);
    const { client, city } = await sessionTarget(flags);
    const { body: accepted } = await client.postJson<AsyncAcceptedBody>(
      sessionPath(city, args.id, 'submit'),
      {
        message: args.text,
        intent: flags.intent as SubmitIntentValue,
      } satisfies SessionSubmitInputBody,
    );
    await finishSessionOp({
      client,
      city,
      accepted,
      resultType: SESSION_RESULTS.submit,
      session: args.id,
      wait: flags.wait,
      timeoutMs,
      progress: process.stderr.isTTY === true,
      out: (line) => this.out(line),
      note: (m) => this.note(m),
    });
  }
}
