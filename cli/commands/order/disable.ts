import * as Args from '@oclif/core/args';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget } from '../../cityClient.ts';
import { compact } from '../../jsonl.ts';

/** `gc order disable`: POST /v0/city/{city}/order/{name}/disable. */
export default class OrderDisable extends GcCommand {
  static override summary = 'Disable an order: its trigger no longer fires it.';
  static override description = `POSTs /v0/city/{city}/order/{name}/disable, which the city journals as order.disabled (it stays so across restarts until "gc order enable"). Prints the answer, {"status":"disabled"}, as one JSON line; doing it twice changes nothing. An unknown order is a not_found error.`;
  static override examples = [
    { description: 'Disable the nightly digest', command: '<%= config.bin %> order disable nightly-digest' },
    {
      description: 'Disable an order of another city',
      command: '<%= config.bin %> order disable nightly-digest --city my-city',
    },
  ];
  static override args = {
    name: Args.string({ description: 'order name (orders/<name>.toml) or scoped name', required: true }),
  };
  static override flags = cityFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(OrderDisable);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.postJson<unknown>(cityPath(city, 'order', args.name, 'disable'));
    await this.out(compact(body));
  }
}
