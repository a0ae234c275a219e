import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, textTable } from '../../cityClient.ts';
import { compact } from '../../jsonl.ts';
import type { OrderCheckResponse } from '../../../schemas/orders.ts';

/** `gc order check`: GET /v0/city/{city}/orders/check. */
export default class OrderCheck extends GcCommand {
  static override summary = 'Show which orders would fire now, and why the others would not.';
  static override description = `Reads GET /v0/city/{city}/orders/check, which evaluates every order's trigger now without firing anything. Prints a table (NAME, DUE, REASON, LAST RUN, OUTCOME), or with --json one OrderCheckResponse object per line, as the API sent it.`;
  static override examples = [
    { description: 'What is due now', command: '<%= config.bin %> order check' },
    {
      description: 'Only the names of the due orders',
      command: "<%= config.bin %> order check --json | jq -r 'select(.due) | .scoped_name'",
    },
  ];
  static override flags = {
    ...cityFlags,
    json: Flags.boolean({ description: 'one JSON object per order per line instead of a table' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(OrderCheck);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.getJson<{ checks: OrderCheckResponse[] | null }>(
      cityPath(city, 'orders', 'check'),
      { fresh: 'true' },
    );
    const checks = body.checks ?? [];
    if (flags.json) {
      for (const c of checks) await this.out(compact(c));
      return;
    }
    const rows = [
      ['NAME', 'DUE', 'REASON', 'LAST RUN', 'OUTCOME'],
      ...checks.map((c) => [
        c.scoped_name,
        c.due ? 'yes' : 'no',
        c.reason,
        c.last_run ?? '',
        c.last_run_outcome ?? '',
      ]),
    ];
    for (const line of textTable(rows)) await this.out(line);
  }
}
