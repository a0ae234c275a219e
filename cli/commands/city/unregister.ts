import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { ApiClient } from '../../api.ts';
import { finishCityOp } from '../../cityOp.ts';
import { GcCommand } from '../../command.ts';
import { discoverApi } from '../../discover.ts';
import type { AsyncAcceptedResponse } from '../../../schemas/cities.ts';
import { parseTimeout } from './create.ts';

/** `gc city unregister`: POST /v0/city/{name}/unregister, optionally waiting for the terminal event. */
export default class CityUnregister extends GcCommand {
  static override summary = 'Unregister a city (its directory on disk is left untouched).';
  static override description = `POSTs /v0/city/{name}/unregister; the supervisor answers 202 and stops the city's controller on its reconciler. Without --wait, prints the 202 body as one JSON line. With --wait, follows the supervisor event stream until request.result.city.unregister or request.failed for this request, prints that event as one JSON line, and exits 1 with its error_message on failure.`;
  static override examples = [
    {
      description: 'Unregister and wait until the controller has stopped',
      command: '<%= config.bin %> city unregister my-city --wait',
    },
    { description: 'Fire and forget', command: '<%= config.bin %> city unregister my-city' },
  ];
  static override args = {
    name: Args.string({ description: 'registered city name (see gc cities)', required: true }),
  };
  static override flags = {
    api: Flags.string({ description: 'supervisor API base URL (default: GC_API, then auto-discovery)' }),
    wait: Flags.boolean({ description: 'wait for the request to finish and print its terminal event' }),
    timeout: Flags.string({ description: 'how long --wait waits', default: '10m' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(CityUnregister);
    const timeoutMs = parseTimeout(flags.timeout);
    const client = new ApiClient(await discoverApi(flags.api));
    const { body: accepted } = await client.postJson<AsyncAcceptedResponse>(
      `/v0/city/${encodeURIComponent(args.name)}/unregister`,
    );
    await finishCityOp({
      client,
      accepted,
      resultType: 'request.result.city.unregister',
      city: { name: args.name },
      wait: flags.wait,
      timeoutMs,
      progress: process.stderr.isTTY === true,
      out: (line) => this.out(line),
      note: (m) => this.note(m),
    });
  }
}
