import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, nameArgOf } from '../../configClient.ts';
import { compact } from '../../jsonl.ts';

/** `gc provider show`: GET /v0/city/{city}/provider/{name}. */
export default class ProviderShow extends GcCommand {
  static override summary = 'Show one provider.';
  static override description = `Reads GET /v0/city/{city}/provider/{name} and prints its effective spec (its base chain flattened, patches applied) as one JSON line.`;
  static override examples = [
    { description: 'One provider', command: '<%= config.bin %> provider show claude' },
    {
      description: 'Its command line',
      command: '<%= config.bin %> provider show my-cli | jq -r \'[.command] + .args | join(" ")\'',
    },
  ];
  static override args = nameArgOf('provider');
  static override flags = cityFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ProviderShow);
    const { client, city } = await cityTarget(flags);
    await this.out(compact((await client.getJson<unknown>(cityPath(city, 'provider', args.name))).body));
  }
}
