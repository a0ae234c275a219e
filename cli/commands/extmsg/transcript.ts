import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { conversationFlags, conversationOf, conversationQuery, extmsgPath } from '../../extmsgClient.ts';
import { compact } from '../../jsonl.ts';
import { sessionFlags, sessionTarget } from '../../sessionClient.ts';
import type { ConversationTranscriptRecord } from '../../../schemas/extmsg.ts';

/** `gc extmsg transcript`: GET /v0/city/{city}/extmsg/transcript, page by page. */
export default class ExtmsgTranscript extends GcCommand {
  static override summary = "Print a conversation's transcript.";
  static override description =
    'Reads GET /v0/city/{city}/extmsg/transcript from --after (a sequence, default 0), following next_cursor, and prints one ConversationTranscriptRecord per line in sequence order (newest first with --order desc, one page). --limit bounds the entries printed.';
  static override examples = [
    {
      description: 'Everything after sequence 10',
      command:
        '<%= config.bin %> extmsg transcript --provider slack --account T01 --conversation C42 --after 10',
    },
    {
      description: 'The whole conversation',
      command: '<%= config.bin %> extmsg transcript --provider slack --account T01 --conversation C42',
    },
  ];
  static override flags = {
    ...sessionFlags,
    ...conversationFlags,
    after: Flags.integer({ description: 'only entries with a sequence above this', min: 0, default: 0 }),
    limit: Flags.integer({ description: 'at most this many entries', min: 1 }),
    order: Flags.string({
      description: 'asc (oldest first) or desc (newest first)',
      options: ['asc', 'desc'],
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ExtmsgTranscript);
    const { client, city } = await sessionTarget(flags);
    const query = conversationQuery(conversationOf(flags));
    let left = flags.limit ?? Infinity;
    for (let after = flags.after; left > 0;) {
      const { body } = await client.getJson<{
        items: ConversationTranscriptRecord[] | null;
        next_cursor?: string;
      }>(extmsgPath(city, 'transcript'), {
        ...query,
        after_sequence: String(after),
        limit: String(Math.min(left, 500)),
        ...(flags.order ? { order: flags.order } : {}),
      });
      const items = body.items ?? [];
      for (const entry of items) await this.out(compact(entry));
      left -= items.length;
      const next = Number(body.next_cursor);
      if (flags.order === 'desc' || !body.next_cursor || !(next > after)) break;
      after = next;
    }
  }
}
