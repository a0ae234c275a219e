import * as Args from '@oclif/core/args';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget } from '../../cityClient.ts';
import { compact } from '../../jsonl.ts';

/** `gc order enable`: POST /v0/city/{city}/order/{name}/enable. */
export default class OrderEnable extends GcCommand {
  static override summary = 'Enable an order: its trigger fires it again.';
  static override description = `POSTs /v0/city/{city}/order/{name}/enable, which the city journals as order.enabled (slots that passed while it was disabled are not caught up). Prints the answer, {"status":"enabled"}, as one JSON line; doing it twice changes nothing. An unknown order is a not_found error.`;
  static override examples = [
    { description: 'Enable the nightly digest', command: '<%= config.bin %> order enable nightly-digest' },
    {
      description: 'Enable an order of another city',
      command: '<%= config.bin %> order enable nightly-digest --city my-city',
    },
  ];
  static override args = {
    name: Args.string({ description: 'order name (orders/<name>.toml) or scoped name', required: true }),
  };
  static override flags = cityFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(OrderEnable);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.postJson<unknown>(cityPath(city, 'order', args.name, 'enable'));
    await this.out(compact(body));
  }
}
