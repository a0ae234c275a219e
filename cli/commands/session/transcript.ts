import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { compact } from '../../jsonl.ts';
import { sessionFlags, sessionPath, sessionTarget } from '../../sessionClient.ts';
import { followSession, type TranscriptPage } from '../../sessionFollow.ts';
import { stopOnSignals } from '../../sseFollow.ts';

/** `gc session transcript`: GET /v0/city/{city}/session/{id}/transcript, or the session stream with --follow. */
export default class SessionTranscript extends GcCommand {
  static override summary = "Print a session's conversation as JSON Lines.";
  static override description = `Reads GET /v0/city/{city}/session/{id}/transcript, the conversation from the agent's own log, and prints each turn ({"role","text","timestamp"?}) as one JSON line, oldest first; with --raw, each entry of the provider's log verbatim. A page holds at most 500 messages: when older ones exist, stderr says which --before reads them. With --follow, reads GET /v0/city/{city}/session/{id}/stream instead and prints the data of each turn frame (with --raw, each message frame) as one JSON line: first the newest page, then each new part of the conversation as the agent writes it, until you interrupt it; after a dropped connection it reconnects with Last-Event-ID, so nothing is printed twice or skipped. Activity, pending and heartbeat frames are not printed. A closed session's stream ends after its snapshot.`;
  static override examples = [
    { description: 'The conversation of a session', command: '<%= config.bin %> session transcript mayor' },
    {
      description: 'The last compaction segment only, and the page before a message',
      command:
        '<%= config.bin %> session transcript gc-12 --tail 1\n<%= config.bin %> session transcript gc-12 --before 6f1c…',
    },
    {
      description: 'Follow what the assistant says',
      command:
        '<%= config.bin %> session transcript mayor --follow | jq -r \'.turns[] | select(.role == "assistant") | .text\'',
    },
    {
      description: "The provider's own log entries, as it wrote them",
      command: '<%= config.bin %> session transcript gc-12 --raw | jq -c .type',
    },
  ];
  static override args = {
    id: Args.string({ description: 'session id, alias or runtime session name', required: true }),
  };
  static override flags = {
    ...sessionFlags,
    tail: Flags.integer({
      description: 'compaction segments from the end (0, the default: all)',
      min: 0,
      exclusive: ['follow'],
    }),
    before: Flags.string({ description: 'the page before this message uuid', exclusive: ['follow'] }),
    raw: Flags.boolean({ description: "the provider's log entries verbatim instead of turns" }),
    follow: Flags.boolean({
      char: 'f',
      description: 'follow the session stream, printing each turn (or message) frame as it comes',
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionTranscript);
    const { client, city } = await sessionTarget(flags);
    if (flags.follow) {
      const stop = new AbortController();
      const undo = stopOnSignals(stop);
      try {
        await followSession({
          client,
          city,
          id: args.id,
          raw: flags.raw,
          signal: stop.signal,
          emit: (frame) => this.out(frame.data.includes('\n') ? compact(JSON.parse(frame.data)) : frame.data),
          warn: (m) => this.note(m),
        });
      } finally {
        undo();
      }
      return;
    }
    const { body } = await client.getJson<TranscriptPage>(sessionPath(city, args.id, 'transcript'), {
      format: flags.raw ? 'raw' : undefined,
      tail: flags.tail,
      before: flags.before,
    });
    for (const item of (flags.raw ? body.messages : body.turns) ?? []) await this.out(compact(item));
    const older = body.pagination;
    if (older?.has_older_messages && older.truncated_before_message) {
      this.note(
        `older messages: gc session transcript ${args.id} --before ${older.truncated_before_message}`,
      );
    }
  }
}
