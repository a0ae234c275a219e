import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { CliError } from '../../errors.ts';
import { sessionFlags, sessionsPath, sessionTarget } from '../../sessionClient.ts';
import { finishSessionOp, SESSION_RESULTS } from '../../sessionWait.ts';
import type { AsyncAcceptedBody, SessionCreateBody } from '../../../schemas/sessions.ts';

/** `gc session new <template>`: upstream's form of `gc session create` for an agent template. */
export default class SessionNew extends GcCommand {
  static override summary = "Start a new session of an agent template (upstream's form).";
  static override description = `POSTs {"kind":"agent","name":<template>} to /v0/city/{city}/sessions and waits (up to 30 s) for request.result.session.create on the city event stream, then prints upstream's line: Session <id> created from template "<template>" (reconciler will start it). --title-hint is the title when --title is not given. It never attaches (upstream attaches unless --no-attach, which is accepted): use "gc session attach <id>". See "gc session create" for providers and JSON output.`;
  static override examples = [
    {
      description: 'A second mayor session, addressed as boss',
      command: '<%= config.bin %> session new mayor --alias boss',
    },
    {
      description: 'From a script, without attaching',
      command: '<%= config.bin %> session new polecat --no-attach --title "fix the build"',
    },
  ];
  static override args = {
    template: Args.string({ description: 'the agent template (qualified name) to start', required: true }),
  };
  static override flags = {
    ...sessionFlags,
    alias: Flags.string({ description: 'an alias to address the session by' }),
    title: Flags.string({ description: 'the session title' }),
    'title-hint': Flags.string({ description: 'a title to use when --title is not given' }),
    'no-attach': Flags.boolean({ description: 'do not attach (ours never does)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionNew);
    const { client, city } = await sessionTarget(flags);
    const body: SessionCreateBody = { kind: 'agent', name: args.template };
    if (flags.alias !== undefined) body.alias = flags.alias;
    const title = flags.title ?? flags['title-hint'];
    if (title !== undefined) body.title = title;
    const { body: accepted } = await client.postJson<AsyncAcceptedBody>(sessionsPath(city), body);
    let line = '';
    await finishSessionOp({
      client,
      city,
      accepted,
      resultType: SESSION_RESULTS.create,
      wait: true,
      timeoutMs: 30_000,
      progress: false,
      out: async (l) => {
        line = l;
      },
      note: (m) => this.note(m),
    });
    const id = (JSON.parse(line) as { payload?: { session?: { id?: string } } }).payload?.session?.id;
    if (!id) throw new CliError('the supervisor did not name the new session');
    await this.out(`Session ${id} created from template "${args.template}" (reconciler will start it).`);
  }
}
