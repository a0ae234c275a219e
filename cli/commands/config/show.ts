import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget } from '../../configClient.ts';
import { compact } from '../../jsonl.ts';

/** `gc config show`: GET /v0/city/{city}/config (or /config/defaults). */
export default class ConfigShow extends GcCommand {
  static override summary = "Print the city's effective configuration.";
  static override description = `Reads GET /v0/city/{city}/config: city.toml with its packs and patches applied (workspace, agents, rigs, providers, patch counts). Prints it as one JSON line; with --defaults, the builtin defaults instead (GET /config/defaults).`;
  static override examples = [
    { description: 'The agents in effect', command: "<%= config.bin %> config show | jq '.agents'" },
    {
      description: 'The builtin providers of a city',
      command: "<%= config.bin %> config show --defaults --city my-city | jq '.providers | keys'",
    },
  ];
  static override flags = {
    ...cityFlags,
    defaults: Flags.boolean({ description: 'the builtin defaults, not the city’s config' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigShow);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.getJson<unknown>(
      cityPath(city, 'config', ...(flags.defaults ? ['defaults'] : [])),
    );
    await this.out(compact(body));
  }
}
