import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, mutate, nameArgOf } from '../../configClient.ts';
import { compact } from '../../jsonl.ts';

/** `gc provider remove`: DELETE /v0/city/{city}/provider/{name}. */
export default class ProviderRemove extends GcCommand {
  static override summary = 'Remove a provider from the city configuration.';
  static override description = `DELETEs /v0/city/{city}/provider/{name}, which removes [providers.<name>] from city.toml. A builtin cannot be removed (conflict:); removing a builtin's city override restores the builtin. A provider agents still use is refused, naming them. Prints {"status":"ok"} as one JSON line.`;
  static override examples = [
    { description: 'Remove a city provider', command: '<%= config.bin %> provider remove my-cli' },
    {
      description: "Drop the city's override of a builtin",
      command: '<%= config.bin %> provider remove codex --city my-city',
    },
  ];
  static override args = nameArgOf('provider');
  static override flags = cityFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ProviderRemove);
    const { client, city } = await cityTarget(flags);
    await this.out(
      compact(
        (await mutate<unknown>(client, 'DELETE', cityPath(city, 'provider', args.name))) ?? { status: 'ok' },
      ),
    );
  }
}
