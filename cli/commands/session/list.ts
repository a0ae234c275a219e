import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { compact } from '../../jsonl.ts';
import { sessionFlags, sessionsPath, sessionTarget } from '../../sessionClient.ts';
import { sessionsTable } from '../../sessionTable.ts';
import type { ListBodySessionResponse, SessionResponse } from '../../../schemas/sessions.ts';

/** `gc session list`: GET /v0/city/{city}/sessions, every page. */
export default class SessionList extends GcCommand {
  static override summary = 'List the sessions of the city in scope.';
  static override description = `Reads GET /v0/city/{city}/sessions, following next_cursor through every page. Prints a table (ID, NAME = the runtime session name, ALIAS, STATE, RUNNING, TEMPLATE, TITLE; any of the first three addresses the session in the other session commands), or with --json one SessionResponse object per line, as the API sent it. The city is --city, GC_CITY, or the city directory containing the current directory.`;
  static override examples = [
    {
      description: 'A table of the sessions of the city in scope',
      command: '<%= config.bin %> session list',
    },
    {
      description: 'Active sessions of one template, as JSON Lines',
      command:
        '<%= config.bin %> session list --city my-city --state active --template mayor --json | jq -r .id',
    },
    {
      description: 'With a preview of each session’s last output',
      command: "<%= config.bin %> session list --json --peek | jq -r '.last_output'",
    },
  ];
  static override flags = {
    ...sessionFlags,
    json: Flags.boolean({ description: 'one JSON object per session per line instead of a table' }),
    state: Flags.string({ description: 'only sessions in this state, e.g. active, asleep, closed' }),
    template: Flags.string({ description: 'only sessions of this template (qualified agent name)' }),
    peek: Flags.boolean({ description: 'include each session’s last output (last_output, JSON only)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SessionList);
    const { client, city } = await sessionTarget(flags);
    const sessions: SessionResponse[] = [];
    const seen = new Set<string>();
    for (let cursor: string | undefined; ;) {
      const { body } = await client.getJson<ListBodySessionResponse>(sessionsPath(city), {
        state: flags.state,
        template: flags.template,
        peek: flags.peek ? 'true' : undefined,
        cursor,
      });
      const page = body.items ?? [];
      if (flags.json) for (const s of page) await this.out(compact(s));
      else sessions.push(...page);
      cursor = body.next_cursor || undefined;
      // A server handing back a cursor it already gave would page forever.
      if (cursor === undefined || seen.has(cursor)) break;
      seen.add(cursor);
    }
    if (!flags.json) for (const line of sessionsTable(sessions)) await this.out(line);
  }
}
