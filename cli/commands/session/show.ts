import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { compact } from '../../jsonl.ts';
import { sessionFlags, sessionPath, sessionTarget } from '../../sessionClient.ts';

/** `gc session show`: GET /v0/city/{city}/session/{id}. */
export default class SessionShow extends GcCommand {
  static override summary = 'Show one session as a JSON line.';
  static override description = `Reads GET /v0/city/{city}/session/{id} and prints the SessionResponse as one compact JSON line, as the API sent it (pipe it to jq for a readable form). <id> is the session id, its alias, or its runtime session name.`;
  static override examples = [
    { description: 'One session, by id or alias', command: '<%= config.bin %> session show mayor' },
    {
      description: 'Its state and the last 20 lines of its screen',
      command: "<%= config.bin %> session show gc-12 --peek --peek-lines 20 | jq -r '.state, .last_output'",
    },
  ];
  static override args = {
    id: Args.string({ description: 'session id, alias or runtime session name', required: true }),
  };
  static override flags = {
    ...sessionFlags,
    peek: Flags.boolean({ description: 'include the last output of the session (last_output)' }),
    'peek-lines': Flags.integer({
      description: 'lines of last output with --peek (server default 5)',
      min: 0,
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionShow);
    const { client, city } = await sessionTarget(flags);
    const peek = flags.peek || flags['peek-lines'] !== undefined;
    const { body } = await client.getJson<unknown>(sessionPath(city, args.id), {
      peek: peek ? 'true' : undefined,
      peek_lines: flags['peek-lines'],
    });
    await this.out(compact(body));
  }
}
