import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { conversationFlags, conversationOf, extmsgPath } from '../../extmsgClient.ts';
import { compact } from '../../jsonl.ts';
import { mutate, sessionFlags, sessionTarget } from '../../sessionClient.ts';
import type { OutboundResult } from '../../../schemas/extmsg.ts';
import type { ExtMsgOutboundBody } from '../../../schemas/extmsgBodies.ts';

/** `gc extmsg send`: POST /v0/city/{city}/extmsg/outbound. */
export default class ExtmsgSend extends GcCommand {
  static override summary = "Publish a session's message to a conversation.";
  static override description =
    'POSTs {session_id, conversation, text} to /v0/city/{city}/extmsg/outbound and prints the OutboundResult as one JSON line. The supervisor delivers the message to the adapter and retries it until the adapter acknowledges: Receipt.Delivered is false when the first attempt failed, and Receipt.Metadata["gc.delivery_status"] says whether it is still pending or dead. Exits 1 when the message was not delivered by the time of the answer and --strict is given.';
  static override examples = [
    {
      description: 'Post as session gc-3',
      command:
        "<%= config.bin %> extmsg send gc-3 'build is green' --provider slack --account T01 --conversation C42",
    },
    {
      description: 'Fail unless the adapter acknowledged at once',
      command:
        "<%= config.bin %> extmsg send gc-3 'deployed' --provider slack --account T01 --conversation C42 --strict",
    },
  ];
  static override args = {
    session: Args.string({ description: 'the posting session', required: true }),
    text: Args.string({ description: 'the message text', required: true }),
  };
  static override flags = {
    ...sessionFlags,
    ...conversationFlags,
    'reply-to': Flags.string({ description: 'provider message id this replies to' }),
    'idempotency-key': Flags.string({
      description: 'key the adapter deduplicates by (default: the delivery id)',
    }),
    strict: Flags.boolean({ description: 'exit 1 unless the adapter acknowledged before the answer' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ExtmsgSend);
    const { client, city } = await sessionTarget(flags);
    const body: ExtMsgOutboundBody = {
      session_id: args.session,
      conversation: conversationOf(flags),
      text: args.text,
      ...(flags['reply-to'] ? { reply_to_message_id: flags['reply-to'] } : {}),
      ...(flags['idempotency-key'] ? { idempotency_key: flags['idempotency-key'] } : {}),
    };
    const result = await mutate<OutboundResult>(client, {
      method: 'POST',
      path: extmsgPath(city, 'outbound'),
      body,
    });
    await this.out(compact(result));
    if (flags.strict && !result.Receipt.Delivered) {
      this.note(`not delivered yet: ${result.Receipt.FailureKind}`);
      process.exitCode = 1;
    }
  }
}
