import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { CliError } from '../../errors.ts';
import { compact } from '../../jsonl.ts';
import { mutate, sessionFlags, sessionPath, sessionTarget } from '../../sessionClient.ts';
import type { SessionPatchBody, SessionRenameInputBody } from '../../../schemas/sessions.ts';

/** `gc session rename`: POST …/session/{id}/rename, or PATCH …/session/{id} when the alias changes. */
export default class SessionRename extends GcCommand {
  static override summary = "Change a session's title, or its alias.";
  static override description = `With a <title> only, POSTs {"title"} to /v0/city/{city}/session/{id}/rename. With --alias (an empty value clears the alias), PATCHes /v0/city/{city}/session/{id} with {"alias"} and the <title> when given. Prints the updated SessionResponse as one JSON line.`;
  static override examples = [
    { description: 'A new title', command: "<%= config.bin %> session rename gc-12 'release checklist'" },
    {
      description: 'A new alias, and clear it again',
      command:
        "<%= config.bin %> session rename gc-12 --alias rel\n<%= config.bin %> session rename rel --alias ''",
    },
  ];
  static override args = {
    id: Args.string({ description: 'session id, alias or runtime session name', required: true }),
    title: Args.string({ description: 'the new title' }),
  };
  static override flags = {
    ...sessionFlags,
    alias: Flags.string({ description: 'the new alias ("" clears it)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionRename);
    const { title } = args;
    const { alias } = flags;
    if (title === undefined && alias === undefined) {
      throw new CliError(`give a new <title>, --alias, or both; see "${this.label} --help"`);
    }
    const { client, city } = await sessionTarget(flags);
    const body =
      alias === undefined
        ? await mutate<unknown>(client, {
            method: 'POST',
            path: sessionPath(city, args.id, 'rename'),
            body: { title: title! } satisfies SessionRenameInputBody,
          })
        : await mutate<unknown>(client, {
            method: 'PATCH',
            path: sessionPath(city, args.id),
            body: { ...(title === undefined ? {} : { title }), alias } satisfies SessionPatchBody,
          });
    await this.out(compact(body));
  }
}
