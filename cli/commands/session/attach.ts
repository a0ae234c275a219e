import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { tmuxSocketFor } from '../../../schemas/sessionRuntime.ts';
import { GcCommand } from '../../command.ts';
import { CliError } from '../../errors.ts';
import { gcHome } from '../../home.ts';
import { execInherited, tmuxAttachArgs, tmuxBinary } from '../../sessionAttach.ts';
import { sessionFlags, sessionPath, sessionTarget } from '../../sessionClient.ts';
import type { SessionResponse } from '../../../schemas/sessions.ts';

/** `gc session attach`: resolves the session, then execs `tmux -L <socket> attach-session -t =<name>`. */
export default class SessionAttach extends GcCommand {
  static override summary = "Attach this terminal to a session's tmux session.";
  static override description = `Reads GET /v0/city/{city}/session/{id} for the session's runtime session_name, then runs tmux attach-session on the city's private tmux server (tmux -L <socket>, the socket named after the city and the supervisor's home) with this terminal; detach with tmux's prefix key and d (C-b d by default). The supervisor's home is --home, else GC_HOME, else ~/.gc: it must be the home of the supervisor that runs the city. Needs tmux on PATH and a session on the tmux runtime that is running.`;
  static override examples = [
    { description: 'Attach to a session by alias', command: '<%= config.bin %> session attach mayor' },
    {
      description: 'A city of a supervisor with its own home',
      command: '<%= config.bin %> session attach gc-12 --city lab --home /srv/gc',
    },
  ];
  static override args = {
    id: Args.string({ description: 'session id, alias or runtime session name', required: true }),
  };
  static override flags = {
    ...sessionFlags,
    home: Flags.string({
      description: "the supervisor's home, which names its tmux socket (default: GC_HOME, then ~/.gc)",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionAttach);
    const { client, city } = await sessionTarget(flags);
    const { body: session } = await client.getJson<SessionResponse>(sessionPath(city, args.id));
    if (!session.session_name) throw new CliError(`session ${args.id} has no runtime session name`);
    if (session.running === false) {
      throw new CliError(
        `session ${args.id} is not running (state ${session.state}); start it with "gc session wake ${args.id}"`,
      );
    }
    const tmux = tmuxBinary();
    await execInherited(
      tmux,
      tmuxAttachArgs(tmuxSocketFor(city, gcHome(process.env, flags.home)), session.session_name),
    );
  }
}
