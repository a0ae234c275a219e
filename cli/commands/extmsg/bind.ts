import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { CliError } from '../../errors.ts';
import { conversationFlags, conversationOf, extmsgPath } from '../../extmsgClient.ts';
import { compact } from '../../jsonl.ts';
import { mutate, sessionFlags, sessionTarget } from '../../sessionClient.ts';
import type { SessionBindingRecord } from '../../../schemas/extmsg.ts';
import type { ExtMsgBindBody } from '../../../schemas/extmsgBodies.ts';

/** `gc extmsg bind`: POST /v0/city/{city}/extmsg/bind. */
export default class ExtmsgBind extends GcCommand {
  static override summary = 'Bind a conversation to a session or an agent.';
  static override description =
    'POSTs {conversation, session_id | agent_name} to /v0/city/{city}/extmsg/bind and prints the SessionBindingRecord as one JSON line. Inbound messages of the conversation are then routed to that session. A conversation bound to someone else is a 409.';
  static override examples = [
    {
      description: 'Bind a Slack channel to a session',
      command:
        '<%= config.bin %> extmsg bind --provider slack --account T01 --conversation C42 --session gc-3',
    },
    {
      description: 'The same in another city',
      command:
        '<%= config.bin %> extmsg bind --city harbor --provider slack --account T01 --conversation C42 --session gc-3',
    },
  ];
  static override flags = {
    ...sessionFlags,
    ...conversationFlags,
    session: Flags.string({ description: 'session to bind', exclusive: ['agent'] }),
    agent: Flags.string({ description: 'agent identity to bind', exclusive: ['session'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ExtmsgBind);
    if (!flags.session && !flags.agent) throw new CliError('one of --session and --agent is required');
    const { client, city } = await sessionTarget(flags);
    const body: ExtMsgBindBody = {
      conversation: conversationOf(flags),
      ...(flags.session ? { session_id: flags.session } : { agent_name: flags.agent! }),
    };
    const binding = await mutate<SessionBindingRecord>(client, {
      method: 'POST',
      path: extmsgPath(city, 'bind'),
      body,
    });
    await this.out(compact(binding));
  }
}
