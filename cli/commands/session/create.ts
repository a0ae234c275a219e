import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { sessionFlags, sessionsPath, sessionTarget } from '../../sessionClient.ts';
import { finishSessionOp, SESSION_RESULTS, waitFlags } from '../../sessionWait.ts';
import type { AsyncAcceptedBody, SessionCreateBody } from '../../../schemas/sessions.ts';
import { parseTimeout } from '../city/create.ts';

/** `gc session create`: POST /v0/city/{city}/sessions, optionally waiting for the terminal event. */
export default class SessionCreate extends GcCommand {
  static override summary = 'Start a session of an agent or a provider in the city in scope.';
  static override description = `POSTs /v0/city/{city}/sessions; the supervisor answers 202 at once and starts the session. Without --wait, prints the 202 body ({"status","request_id","event_cursor"}) as one JSON line. With --wait, follows the city event stream from event_cursor until request.result.session.create or request.failed for this request, prints that event as one JSON line (its payload.session is the new session), and exits 1 with its error_message on failure; on a terminal, session events go to stderr meanwhile.`;
  static override examples = [
    {
      description: 'Start a session of the agent "mayor" and wait until it is up',
      command: '<%= config.bin %> session create mayor --alias boss --wait',
    },
    {
      description: "A provider's session with a first message; print the new session's id",
      command:
        "<%= config.bin %> session create claude --kind provider --title 'fix the build' --message 'run make' --wait | jq -r .payload.session.id",
    },
    {
      description: 'Fire and forget; the request id comes back as JSON',
      command: '<%= config.bin %> session create mayor --city my-city | jq -r .request_id',
    },
  ];
  static override args = {
    name: Args.string({ description: 'agent or provider name (see --kind)', required: true }),
  };
  static override flags = {
    ...sessionFlags,
    kind: Flags.string({
      description: 'whether <name> is an agent or a provider (default: the server decides)',
      options: ['agent', 'provider'],
    }),
    alias: Flags.string({ description: 'an alias to address the session by' }),
    title: Flags.string({ description: 'the session title' }),
    message: Flags.string({ description: 'a first message to send once the session is up' }),
    ...waitFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionCreate);
    const timeoutMs = parseTimeout(flags.timeout);
    const { client, city } = await sessionTarget(flags);
    const body: SessionCreateBody = { name: args.name };
    if (flags.kind !== undefined) body.kind = flags.kind;
    if (flags.alias !== undefined) body.alias = flags.alias;
    if (flags.title !== undefined) body.title = flags.title;
    if (flags.message !== undefined) body.message = flags.message;
    const { body: accepted } = await client.postJson<AsyncAcceptedBody>(sessionsPath(city), body);
    await finishSessionOp({
      client,
      city,
      accepted,
      resultType: SESSION_RESULTS.create,
      wait: flags.wait,
      timeoutMs,
      progress: process.stderr.isTTY === true,
      out: (line) => this.out(line),
      note: (m) => this.note(m),
    });
  }
}
