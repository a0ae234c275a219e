import * as Flags from '@oclif/core/flags';
import { agentFlags, agentMutation, agentTarget } from '../../agentClient.ts';
import { GcCommand } from '../../command.ts';
import { compact } from '../../jsonl.ts';

/** `gc events rotate`: POST /v0/city/{city}/events/rotate. */
export default class EventsRotate extends GcCommand {
  static override summary = "Archive a city's event log since the last rotation.";
  static override description = `POSTs /v0/city/{city}/events/rotate: the supervisor writes the events since the previous rotation to a gzipped JSON Lines archive in the city's .gc/ and records an events.rotated anchor (seq continues; the live log is kept whole). Prints the answer (EventRotateResponse) as one JSON line: {"rotated":true,"archive":{…},"anchor_event":{…}}, or {"rotated":false,"reason":"active log is empty"} when there is nothing to archive. Without --wait the archive may still be compressing (archive.compression_status "pending"); --wait answers once it is complete (up to 30 s). Failures are one line on stderr and exit status 1.`;
  static override examples = [
    {
      description: 'Rotate the log of the city in scope',
      command: '<%= config.bin %> events rotate',
    },
    {
      description: 'Rotate another city and wait for the archive to be written',
      command: '<%= config.bin %> events rotate --city my-city --wait',
    },
  ];
  static override flags = {
    ...agentFlags,
    city: Flags.string({
      description:
        'city whose log to rotate: a registered name or a city directory (default: GC_CITY, then cwd)',
    }),
    wait: Flags.boolean({ description: 'answer once the archive is complete (up to 30 s)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(EventsRotate);
    const { client, city } = await agentTarget(flags);
    const path = `/v0/city/${encodeURIComponent(city)}/events/rotate${flags.wait ? '?wait=true' : ''}`;
    await this.out(compact(await agentMutation<unknown>(client, 'POST', path)));
  }
}
