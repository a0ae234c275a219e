import { resolve } from 'node:path';
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { ApiClient } from '../../api.ts';
import { finishCityOp } from '../../cityOp.ts';
import { GcCommand } from '../../command.ts';
import { discoverApi } from '../../discover.ts';
import { parseDuration } from '../../duration.ts';
import { CliError } from '../../errors.ts';
import type { AsyncAcceptedResponse } from '../../../schemas/cities.ts';
import { BOOTSTRAP_PROFILES } from '../../../schemas/bootstrapProfiles.ts';

/** `gc city create`: POST /v0/city, optionally waiting for the request's terminal event. */
export default class CityCreate extends GcCommand {
  static override summary = 'Create a city in a directory and register it with the supervisor.';
  static override description = `POSTs /v0/city; the supervisor answers 202 at once and finishes the work on its reconciler. Without --wait, prints the 202 body ({"request_id","event_cursor"}) as one JSON line. With --wait, follows the supervisor event stream from event_cursor until request.result.city.create or request.failed for this request, prints that event as one JSON line, and exits 1 with its error_message on failure (progress goes to stderr on a terminal). A relative <dir> is taken from the current directory.`;
  static override examples = [
    {
      description: 'Create a city and wait until it is ready (needs no agent CLI installed)',
      command: "<%= config.bin %> city create ./my-city --start-command 'bash -l' --wait",
    },
    {
      description: "Use a provider's session template (its CLI must be on the supervisor's PATH)",
      command: '<%= config.bin %> city create /srv/cities/lab --provider claude',
    },
    {
      description: 'Fire and forget; the request id comes back as JSON',
      command: '<%= config.bin %> city create ./my-city --provider codex | jq -r .request_id',
    },
  ];
  static override args = {
    dir: Args.string({ description: 'directory of the new city (created if missing)', required: true }),
  };
  static override flags = {
    api: Flags.string({ description: 'supervisor API base URL (default: GC_API, then auto-discovery)' }),
    provider: Flags.string({ description: "provider of the city's default session template, e.g. claude" }),
    'start-command': Flags.string({ description: 'custom workspace start command (instead of --provider)' }),
    'bootstrap-profile': Flags.string({ description: 'bootstrap profile', options: BOOTSTRAP_PROFILES }),
    wait: Flags.boolean({ description: 'wait for the request to finish and print its terminal event' }),
    timeout: Flags.string({ description: 'how long --wait waits', default: '10m' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(CityCreate);
    if (flags.provider !== undefined && flags['start-command'] !== undefined) {
      throw new CliError('--provider and --start-command are mutually exclusive');
    }
    const timeoutMs = parseTimeout(flags.timeout);
    const dir = resolve(args.dir);
    const client = new ApiClient(await discoverApi(flags.api));
    const body: Record<string, string> = { dir };
    if (flags.provider !== undefined) body.provider = flags.provider;
    if (flags['start-command'] !== undefined) body.start_command = flags['start-command'];
    if (flags['bootstrap-profile'] !== undefined) body.bootstrap_profile = flags['bootstrap-profile'];
    const { body: accepted } = await client.postJson<AsyncAcceptedResponse>('/v0/city', body);
    await finishCityOp({
      client,
      accepted,
      resultType: 'request.result.city.create',
      city: { path: dir },
      wait: flags.wait,
      timeoutMs,
      progress: process.stderr.isTTY === true,
      out: (line) => this.out(line),
      note: (m) => this.note(m),
    });
  }
}

/** Parses a `--timeout` value. @throws CliError */
export function parseTimeout(text: string): number {
  try {
    const ms = parseDuration(text);
    if (ms > 0) return ms;
  } catch (err) {
    throw new CliError(`invalid --timeout "${text}": ${(err as Error).message}`);
  }
  throw new CliError(`invalid --timeout "${text}": must be greater than 0`);
}
