import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { CliError } from '../../errors.ts';
import { compact } from '../../jsonl.ts';
import { sessionFlags, sessionPath, sessionTarget } from '../../sessionClient.ts';
import {
  followSession,
  type TranscriptPage,
  type TranscriptTurn as Turn,
  type TurnFrame,
} from '../../sessionFollow.ts';
import { stopOnSignals } from '../../sseFollow.ts';

/** `gc session logs`: a session's turns one per line, from the transcript or, with --follow, its stream. */
export default class SessionLogs extends GcCommand {
  static override summary = "Print a session's turns as JSON Lines, optionally following new ones.";
  static override description = `Prints the turns of a session's conversation, one JSON object ({"role","text","timestamp"?}) per line, oldest first, like "gc events" prints events: the newest page of GET /v0/city/{city}/session/{id}/transcript, or its last --tail turns. With --follow, reads GET /v0/city/{city}/session/{id}/stream instead: the latest turns (the last --tail of them), then every new turn as the agent writes it, until you interrupt it; a dropped connection is resumed with Last-Event-ID, so no turn is printed twice or skipped. A session with no log yet shows its screen as "output" turns. See "gc session transcript" for pages and the provider's raw entries.`;
  static override examples = [
    { description: 'Follow a session as it works', command: '<%= config.bin %> session logs mayor --follow' },
    {
      description: 'The last 20 turns, then the new ones, text only',
      command: '<%= config.bin %> session logs gc-12 --tail 20 --follow | jq -r \'.role + ": " + .text\'',
    },
  ];
  static override args = {
    id: Args.string({ description: 'session id, alias or runtime session name', required: true }),
  };
  static override flags = {
    ...sessionFlags,
    follow: Flags.boolean({ char: 'f', description: 'keep printing new turns as they come' }),
    tail: Flags.integer({ description: 'print only the last n turns first (0: none)', min: 0 }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionLogs);
    const { client, city } = await sessionTarget(flags);
    const last = (turns: Turn[]): Turn[] =>
      flags.tail === undefined ? turns : turns.slice(Math.max(0, turns.length - flags.tail));
    if (!flags.follow) {
      const { body } = await client.getJson<TranscriptPage>(sessionPath(city, args.id, 'transcript'));
      for (const turn of last(body.turns ?? [])) await this.out(compact(turn));
      return;
    }
    const stop = new AbortController();
    const undo = stopOnSignals(stop);
    let first = true;
    try {
      await followSession({
        client,
        city,
        id: args.id,
        raw: false,
        signal: stop.signal,
        emit: async (frame) => {
          let data: TurnFrame;
          try {
            data = JSON.parse(frame.data) as TurnFrame;
          } catch {
            throw new CliError(`decode: undecodable turn frame: ${frame.data.slice(0, 120)}`);
          }
          // The first frame is the newest page: --tail trims it; later frames are new turns.
          const turns = first ? last(data.turns ?? []) : (data.turns ?? []);
          first = false;
          for (const turn of turns) await this.out(compact(turn));
        },
        warn: (m) => this.note(m),
      });
    } finally {
      undo();
    }
  }
}
