import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import type { Static } from 'typebox';
import { GcCommand } from '../../command.ts';
import { CliError } from '../../errors.ts';
import { compact } from '../../jsonl.ts';
import { mutate, sessionFlags, sessionPath, sessionTarget } from '../../sessionClient.ts';
import type { SessionRespondInputBody } from '../../../schemas/sessionTranscript.ts';

/** `gc session respond`: POST /v0/city/{city}/session/{id}/respond. */
export default class SessionRespond extends GcCommand {
  static override summary = 'Answer the prompt a session waits on (approve, deny, answer).';
  static override description = `POSTs {"action","request_id"?,"text"?} to /v0/city/{city}/session/{id}/respond: the supervisor types the prompt's one key for the action (approve, approve_always, deny; answer picks the option --text names, by label or number) and answers 202 once the prompt has cleared. Prints the answer, {"status":"accepted","id"}, as one JSON line. With --request-id, a different prompt on the screen is refused (409 invalid_interaction:) instead of answered; nothing to answer is a 409 no_pending:. See "gc session pending".`;
  static override examples = [
    {
      description: 'Approve what a session asks',
      command: '<%= config.bin %> session respond mayor approve',
    },
    {
      description: 'Deny exactly the prompt you read',
      command: '<%= config.bin %> session respond gc-12 deny --request-id tmux-3f2a9c0d1e2b4a5f',
    },
    {
      description: 'Pick an option by its label',
      command: "<%= config.bin %> session respond gc-12 answer --text 'No'",
    },
  ];
  static override args = {
    id: Args.string({ description: 'session id, alias or runtime session name', required: true }),
    action: Args.string({
      description: 'how to answer',
      required: true,
      options: ['approve', 'approve_always', 'deny', 'answer'],
    }),
  };
  static override flags = {
    ...sessionFlags,
    text: Flags.string({ description: 'answer: the option to pick (its label, or its number 1-3)' }),
    'request-id': Flags.string({ description: 'answer only this prompt (from "gc session pending")' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionRespond);
    if (args.action === 'answer' && flags.text === undefined) {
      throw new CliError(`answer needs --text (an option's label or number); see "${this.label} --help"`);
    }
    const body: Static<typeof SessionRespondInputBody> = { action: args.action };
    if (flags['request-id'] !== undefined) body.request_id = flags['request-id'];
    if (flags.text !== undefined) body.text = flags.text;
    const { client, city } = await sessionTarget(flags);
    const answer = await mutate<unknown>(client, {
      method: 'POST',
      path: sessionPath(city, args.id, 'respond'),
      body,
    });
    await this.out(compact(answer));
  }
}
