import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, textTable } from '../../cityClient.ts';
import { compact } from '../../jsonl.ts';
import type { OrderResponse } from '../../../schemas/orders.ts';

/** What an order runs on: its schedule, interval or event. Pure. */
const when = (o: OrderResponse): string => o.schedule ?? o.interval ?? o.on ?? '';

/** `gc order list`: GET /v0/city/{city}/orders. */
export default class OrderList extends GcCommand {
  static override summary = 'List the orders of the city in scope.';
  static override description = `Reads GET /v0/city/{city}/orders: every order of the city's orders/ directory with its effective enabled flag. Prints a table (NAME, TYPE, TRIGGER, WHEN, ENABLED, RUNS: the formula or command), or with --json one OrderResponse object per line, as the API sent it. A file that does not parse is left out (the server logs why).`;
  static override examples = [
    { description: 'A table of the orders', command: '<%= config.bin %> order list' },
    {
      description: 'The disabled ones, as JSON Lines',
      command: "<%= config.bin %> order list --json | jq -c 'select(.enabled | not)'",
    },
  ];
  static override flags = {
    ...cityFlags,
    json: Flags.boolean({ description: 'one JSON object per order per line instead of a table' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(OrderList);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.getJson<{ orders: OrderResponse[] | null }>(cityPath(city, 'orders'));
    const orders = body.orders ?? [];
    if (flags.json) {
      for (const o of orders) await this.out(compact(o));
      return;
    }
    const rows = [
      ['NAME', 'TYPE', 'TRIGGER', 'WHEN', 'ENABLED', 'RUNS'],
      ...orders.map((o) => [
        o.scoped_name,
        o.type,
        o.trigger ?? '',
        when(o),
        o.enabled ? 'yes' : 'no',
        o.formula ?? o.exec ?? '',
      ]),
    ];
    for (const line of textTable(rows)) await this.out(line);
  }
}
