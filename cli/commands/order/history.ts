import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget } from '../../cityClient.ts';
import { compact } from '../../jsonl.ts';
import type { OrderHistoryDetail, OrderHistoryEntry } from '../../../schemas/orders.ts';

/** `gc order history`: GET /v0/city/{city}/orders/history (and /order/history/{bead_id}). */
export default class OrderHistory extends GcCommand {
  static override summary = 'Show the runs of an order, newest first.';
  static override description = `Reads GET /v0/city/{city}/orders/history?scoped_name=<name> and prints one OrderHistoryEntry per line, newest first: each run's tracking bead (labels order-tracking and wisp or exec, with exit code and duration for a command), the workflow a formula order dispatched, and the record of slots missed while the city was down (label order-skipped). --output adds each command run's captured output (GET /order/history/{bead_id}) as an "output" field.`;
  static override examples = [
    {
      description: 'The last 20 runs of an order',
      command: '<%= config.bin %> order history nightly-digest',
    },
    {
      description: 'The last 5 runs before a date, with their output',
      command:
        '<%= config.bin %> order history cleanup --limit 5 --before 2026-11-01T00:00:00Z --output | jq -r .output',
    },
  ];
  static override args = {
    name: Args.string({ description: 'order name (orders/<name>.toml) or scoped name', required: true }),
  };
  static override flags = {
    ...cityFlags,
    limit: Flags.integer({ description: 'at most this many runs (default 20)', min: 1 }),
    before: Flags.string({ description: 'only runs created before this RFC 3339 timestamp' }),
    output: Flags.boolean({ description: 'add each command run’s captured output' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(OrderHistory);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.getJson<{ entries: OrderHistoryEntry[] | null }>(
      cityPath(city, 'orders', 'history'),
      { scoped_name: args.name, limit: flags.limit, before: flags.before },
    );
    for (const entry of body.entries ?? []) {
      if (!flags.output || !entry.has_output) {
        await this.out(compact(entry));
        continue;
      }
      const detail = await client.getJson<OrderHistoryDetail>(
        cityPath(city, 'order', 'history', entry.bead_id),
      );
      await this.out(compact({ ...entry, output: detail.body.output }));
    }
  }
}
