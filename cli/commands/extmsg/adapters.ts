import { GcCommand } from '../../command.ts';
import { extmsgPath } from '../../extmsgClient.ts';
import { compact } from '../../jsonl.ts';
import { sessionFlags, sessionTarget } from '../../sessionClient.ts';
import type { ExtmsgAdapterInfo } from '../../../schemas/extmsg.ts';

/** `gc extmsg adapters`: GET /v0/city/{city}/extmsg/adapters. */
export default class ExtmsgAdapters extends GcCommand {
  static override summary = 'List the external messaging adapters of the city in scope.';
  static override description =
    'Reads GET /v0/city/{city}/extmsg/adapters and prints one ExtmsgAdapterInfo object ({provider, account_id, name}) per line. Adapters are registered by the adapters themselves (POST /extmsg/adapters) and survive a supervisor restart.';
  static override examples = [
    { description: 'Every adapter', command: '<%= config.bin %> extmsg adapters' },
    {
      description: 'The adapters of another city',
      command: '<%= config.bin %> extmsg adapters --city harbor',
    },
  ];
  static override flags = { ...sessionFlags };

  async run(): Promise<void> {
    const { flags } = await this.parse(ExtmsgAdapters);
    const { client, city } = await sessionTarget(flags);
    const { body } = await client.getJson<{ items: ExtmsgAdapterInfo[] | null }>(
      extmsgPath(city, 'adapters'),
    );
    for (const adapter of body.items ?? []) await this.out(compact(adapter));
  }
}
